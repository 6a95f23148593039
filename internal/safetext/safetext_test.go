package safetext_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dshgo/planmode/internal/safetext"
)

func TestEscapeShowsHiddenCharacters(t *testing.T) {
	tests := []struct {
		name, give, want string
	}{
		{"plain text stays", "# Plan\n\n1. Run the tests.\tok", "# Plan\n\n1. Run the tests.\tok"},
		{"carriage return overwriting a step", "2. rm -rf ~/projects\r2. Run the unit tests.", `2. rm -rf ~/projects\r2. Run the unit tests.`},
		{"CRLF line ends", "a\r\nb\r\n", "a\nb\n"},
		{"ANSI clear screen", "\x1b[2J\x1b[Hsafe", `\x1b[2J\x1b[Hsafe`},
		{"ANSI conceal", "x\x1b[8mhidden\x1b[0m", `x\x1b[8mhidden\x1b[0m`},
		{"OSC title", "\x1b]0;owned\x07", `\x1b]0;owned\a`},
		{"backspace", "rm\b\bls", `rm\b\bls`},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`},
		{"C1 CSI", "a\u009b2Jb", `a\u009b2Jb`},
		{"NEL", "a\u0085b", `a\u0085b`},
		{"right-to-left override", "safe \u202eexe.txt", `safe \u202eexe.txt`},
		{"bidi isolates", "\u2066a\u2069\u2067b\u2069\u2068c\u2069", `\u2066a\u2069\u2067b\u2069\u2068c\u2069`},
		{"embeddings and marks", "\u202a\u202b\u202c\u202d\u200e\u200f\u061c", `\u202a\u202b\u202c\u202d\u200e\u200f\u061c`},
		{"zero-width space and BOM", "pro\u200bjects\ufeff", `pro\u200bjects\ufeff`},
		{"tag characters", "ok\U000e0041\U000e007f", `ok\U000e0041\U000e007f`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"Hangul filler", "a\u3164b", `a\u3164b`},
		{"data hidden in variation selectors", "😀\U000e0100\U000e01ef", `😀\U000e0100\U000e01ef`},
		{"emoji variation selector stays", "❤\ufe0f", "❤\ufe0f"},
		{"combining grapheme joiner", "a\u034fb", `a\u034fb`},
		{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`},
		{"emoji with joiners stay", "👩‍💻 ok", "👩‍💻 ok"},
		{"accents and CJK stay", "café 计划", "café 计划"},
		{"a real U+FFFD stays", "a\ufffdb", "a\ufffdb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := safetext.Escape(tt.give); got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.give, got, tt.want)
			}
		})
	}
}

func TestMarkdownNeutralizesCharacterReferences(t *testing.T) {
	tests := []struct {
		name, give, want string
	}{
		{"an escape by number", "a&#27;[2Jb", `a&amp;#27;[2Jb`},
		{"an escape in hex", "&#x1B;[8m", `&amp;#x1B;[8m`},
		{"a named bidi mark", "x&rlm;y", `x&amp;rlm;y`},
		{"an override by number", "&#8238;", `&amp;#8238;`},
		{"harmless references stay", "&amp; &lt; &#233; &copy;", "&amp; &lt; &#233; &copy;"},
		{"raw characters are escaped too", "\x1b&#27;", `\x1b&amp;#27;`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := safetext.Markdown(tt.give); got != tt.want {
				t.Errorf("Markdown(%q) = %q, want %q", tt.give, got, tt.want)
			}
		})
	}
}

func TestEscapeExceptSGRKeepsOnlyColoursAndLinks(t *testing.T) {
	tests := []struct{ name, give, want string }{
		{"colours stay", "\x1b[1;38;5;228mtitle\x1b[0m\x1b[m", "\x1b[1;38;5;228mtitle\x1b[0m\x1b[m"},
		{"a hyperlink stays", "\x1b]8;id=1;http://x.example/a?b=c\aLink\x1b]8;;\a", "\x1b]8;id=1;http://x.example/a?b=c\aLink\x1b]8;;\a"},
		{"a hyperlink ended by ST stays", "\x1b]8;;https://x\x1b\\L\x1b]8;;\x1b\\", "\x1b]8;;https://x\x1b\\L\x1b]8;;\x1b\\"},
		{"a non-ASCII link is escaped", "\x1b]8;;http://exаmple\aL", `\x1b]8;;http://exаmple\aL`},
		{"a title change is escaped", "\x1b]0;owned\a", `\x1b]0;owned\a`},
		{"cursor moves are escaped", "a\r\x1b[2J\x1b[1A", `a\r\x1b[2J\x1b[1A`},
		{"bidi is escaped", "\x1b[1mx\u202e\x1b[0m", "\x1b[1mx" + `\u202e` + "\x1b[0m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := safetext.EscapeExceptSGR(tt.give); got != tt.want {
				t.Errorf("EscapeExceptSGR(%q) = %q, want %q", tt.give, got, tt.want)
			}
		})
	}
}

func TestJSONKeepsMeaning(t *testing.T) {
	give := map[string]string{"text": "a\u202eb\u0085c\U000e0041d\x1b"}
	b, err := json.Marshal(give)
	if err != nil {
		t.Fatal(err)
	}
	got := safetext.JSON(b)
	if !safetext.Safe(string(got)) {
		t.Fatalf("JSON left unsafe characters: %q", got)
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["text"] != give["text"] {
		t.Errorf("JSON changed the meaning: %q -> %q, %v", give["text"], back["text"], err)
	}
}

// allowedSeq matches what EscapeExceptSGR may keep: colours and ASCII
// hyperlinks.
var allowedSeq = regexp.MustCompile("\x1b\\[[0-9;:]*m|\x1b\\]8;[!-:<-~]*;[!-~]*?(?:\a|\x1b\\\\)")

// FuzzEscape: whatever the input, the output is valid UTF-8 with no unsafe
// character, keeps every newline and tab, and a safe input is unchanged.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", "a\r\nb", "\x1b[2J", "\u202eabc", "\xff\xfe", "👩‍💻", "\U000e0041", "a\tb\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := safetext.Escape(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q is not valid UTF-8", s, got)
		}
		for _, r := range got {
			if safetext.Unsafe(r) {
				t.Fatalf("Escape(%q) = %q keeps %U", s, got, r)
			}
		}
		if strings.Count(got, "\n") != strings.Count(s, "\n") || strings.Count(got, "\t") != strings.Count(s, "\t") {
			t.Fatalf("Escape(%q) = %q changed newlines or tabs", s, got)
		}
		if safetext.Safe(s) && got != s {
			t.Fatalf("Escape(%q) = %q changed a safe string", s, got)
		}
		if md := safetext.Markdown(s); !safetext.Safe(md) {
			t.Fatalf("Markdown(%q) = %q is not safe", s, md)
		}
		if e := safetext.EscapeExceptSGR(s); !safetext.Safe(allowedSeq.ReplaceAllString(e, "")) {
			t.Fatalf("EscapeExceptSGR(%q) = %q keeps another sequence", s, e)
		}
	})
}
