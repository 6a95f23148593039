// Package safetext makes text from outside the program (a model, a tool, a
// session log) safe to show in a terminal: every character that could move
// the cursor, change the terminal's state, reorder what is shown or hide
// itself is replaced by a visible escape, so the reader sees exactly what
// the text holds. Newline and tab stay as they are.
//
// The characters escaped are the C0 controls but newline and tab (a
// carriage return before a newline is dropped instead), DEL, the C1
// controls, the Unicode format characters (category Cf: bidirectional
// embeddings, overrides and isolates, zero-width spaces, invisible
// operators, tag characters, the byte order mark; zero-width joiner and
// non-joiner are kept, as emoji and several scripts need them), the line
// and paragraph separators, the Hangul fillers, the invisible combining
// marks U+034F, U+17B4 and U+17B5, the variation selectors supplement
// (U+E0100 to U+E01EF, which can carry hidden data after a character; the
// emoji variation selectors U+FE00 to U+FE0F stay), and the bytes of
// invalid UTF-8. Escapes look like Go's: \r, \x1b, \u202e, \U000e0041, and \xff for
// a stray byte.
package safetext

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unsafe reports whether r is a character Escape replaces. Newline and tab
// are safe.
func Unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r <= 0x9f: // C1 controls
		return true
	case r == 0x200c || r == 0x200d: // zero-width non-joiner and joiner
		return false
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	case r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0: // Hangul fillers
		return true
	case r == 0x034f || r == 0x17b4 || r == 0x17b5: // invisible combining marks
		return true
	case r >= 0xe0100 && r <= 0xe01ef: // variation selectors supplement (hides data)
		return true
	case r == utf8.RuneError:
		return false // a real U+FFFD; invalid bytes are handled by Escape
	}
	return unicode.Is(unicode.Cf, r)
}

// Safe reports whether s shows as it is: valid UTF-8 with no character
// Escape would replace.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // ASCII, most of any text: no decoding
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f { // as Unsafe
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Unsafe(r) {
			return false
		}
		i += n
	}
	return true
}

// Escape returns s with every unsafe character replaced by a visible
// escape; a carriage return right before a newline is dropped. A string
// that is already safe is returned as it is.
func Escape(s string) string {
	if Safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			// CRLF: the carriage return hides nothing; drop it.
		case Unsafe(r):
			b.WriteString(escapeRune(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// escapeRune is the visible form of an unsafe rune.
func escapeRune(r rune) string {
	switch r {
	case '\r':
		return `\r`
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\v':
		return `\v`
	}
	switch {
	case r < 0x80:
		return `\x` + hex2(byte(r))
	case r <= 0xffff:
		s := strconv.FormatInt(int64(r), 16)
		return `\u` + strings.Repeat("0", 4-len(s)) + s
	}
	s := strconv.FormatInt(int64(r), 16)
	return `\U` + strings.Repeat("0", 8-len(s)) + s
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

// charRef matches an HTML character reference, which a Markdown renderer
// decodes into the character it names.
var charRef = regexp.MustCompile(`&(?:#[0-9]{1,10}|#[xX][0-9a-fA-F]{1,8}|[A-Za-z][A-Za-z0-9]{1,40});`)

// Markdown returns s escaped for a Markdown renderer: as Escape, and every
// character reference that would decode to an unsafe character (such as
// &#27; or &rlm;) has its ampersand written as &amp;, so the renderer shows
// the reference as written instead of producing the character.
func Markdown(s string) string {
	s = Escape(s)
	if !strings.Contains(s, "&") {
		return s
	}
	return charRef.ReplaceAllStringFunc(s, func(ref string) string {
		dec := html.UnescapeString(ref)
		if dec == ref || Safe(dec) {
			return ref
		}
		return "&amp;" + ref[1:]
	})
}

// sgr matches a Select Graphic Rendition sequence (colours and text
// attributes); hyperlink matches an OSC 8 hyperlink whose parameters and
// URI are printable ASCII, ended by BEL or ST. These are the only escape
// sequences EscapeExceptSGR lets through.
var (
	sgr       = regexp.MustCompile("^\x1b\\[[0-9;:]*m")
	hyperlink = regexp.MustCompile("^\x1b\\]8;[\x21-\x3a\x3c-\x7e]*;[\x21-\x7e]*?(?:\x07|\x1b\\\\)")
)

// EscapeExceptSGR is Escape for text a trusted renderer produced from
// already escaped input (glamour, lipgloss): it keeps the renderer's colour
// and attribute sequences and its hyperlinks (OSC 8, ASCII only; glamour
// also prints the URL as text), and escapes every other unsafe character.
func EscapeExceptSGR(s string) string {
	if !strings.Contains(s, "\x1b") {
		return Escape(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.IndexByte(s, 0x1b)
		if i < 0 {
			b.WriteString(Escape(s))
			return b.String()
		}
		b.WriteString(Escape(s[:i]))
		m := sgr.FindString(s[i:])
		if m == "" {
			m = hyperlink.FindString(s[i:])
		}
		if m != "" {
			b.WriteString(m)
			s = s[i+len(m):]
			continue
		}
		b.WriteString(`\x1b`)
		s = s[i+1:]
	}
}

// JSON returns encoded JSON with every unsafe character inside its strings
// written as a \u escape (a surrogate pair above U+FFFF), so the document
// means the same and shows safely. Outside strings valid JSON has no such
// characters; invalid UTF-8 is left to the encoder, which never writes it.
func JSON(b []byte) []byte {
	s := string(b)
	if Safe(s) {
		return b
	}
	var out strings.Builder
	out.Grow(len(s) + 16)
	for _, r := range s {
		if !Unsafe(r) {
			out.WriteRune(r)
			continue
		}
		if r > 0xffff {
			r1, r2 := utf16Pair(r)
			out.WriteString(jsonU(r1) + jsonU(r2))
			continue
		}
		out.WriteString(jsonU(r))
	}
	return []byte(out.String())
}

func jsonU(r rune) string {
	s := strconv.FormatInt(int64(r), 16)
	return `\u` + strings.Repeat("0", 4-len(s)) + s
}

// utf16Pair splits r (above U+FFFF) into its surrogate pair.
func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
