package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
)

// line is one line of a Markdown page.
type line struct {
	// text is the line including its line ending, if any.
	text []byte
	// offset is the position of the line's first byte in the page.
	offset int
	// number is the 1-based line number.
	number int
	// fenced is true for the lines of a fenced code block, the opening and
	// closing fence lines included.
	fenced bool
}

// splitLines splits page into lines and marks those inside fenced code
// blocks. A fence is a line that starts (after any indentation) with three
// or more backticks or tildes; it is closed by a line holding only a run of
// the same character at least as long. An unclosed fence runs to the end of
// the page, as in CommonMark.
func splitLines(page []byte) []line {
	lines, _ := scanLines(page)
	return lines
}

// scanLines is splitLines that also reports whether a fence is still open
// at the end of the page.
func scanLines(page []byte) ([]line, bool) {
	var (
		out       []line
		fenceChar byte
		fenceLen  int
	)
	for off, n := 0, 1; off < len(page); n++ {
		end := bytes.IndexByte(page[off:], '\n')
		if end < 0 {
			end = len(page)
		} else {
			end += off + 1
		}
		text := page[off:end]
		l := line{text: text, offset: off, number: n}
		body := bytes.TrimLeft(trimEOL(text), " \t")
		switch {
		case fenceLen > 0:
			l.fenced = true
			if c, k := fenceRun(body); c == fenceChar && k >= fenceLen && len(bytes.TrimSpace(body[k:])) == 0 {
				fenceLen = 0
			}
		default:
			if c, k := fenceRun(body); k >= 3 && (c == '~' || bytes.IndexByte(body[k:], '`') < 0) {
				fenceChar, fenceLen = c, k
				l.fenced = true
			}
		}
		out = append(out, l)
		off = end
	}
	return out, fenceLen > 0
}

// fenceRun returns the fence character that b starts with and the length of
// its run, or (0, 0) when b does not start with a backtick or a tilde.
func fenceRun(b []byte) (byte, int) {
	if len(b) == 0 || (b[0] != '`' && b[0] != '~') {
		return 0, 0
	}
	k := 1
	for k < len(b) && b[k] == b[0] {
		k++
	}
	return b[0], k
}

// trimEOL removes a trailing "\n" or "\r\n".
func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// Heading is one ATX heading of a Markdown page.
type Heading struct {
	// Level is the number of '#' characters, 1 to 6.
	Level int
	// Text is the heading's text, trimmed, without closing '#' characters.
	Text string
	// Line is the heading's 1-based line number.
	Line int
}

// Headings returns the page's ATX headings ("# Title" to "###### Title")
// outside fenced code blocks, in page order. Two language versions of a page
// share one heading structure: the same levels in the same order.
func Headings(page []byte) []Heading {
	var hs []Heading
	for _, l := range splitLines(page) {
		if l.fenced {
			continue
		}
		body := trimEOL(l.text)
		indent := len(body) - len(bytes.TrimLeft(body, " "))
		if indent > 3 {
			continue
		}
		body = body[indent:]
		level := 0
		for level < len(body) && body[level] == '#' {
			level++
		}
		if level == 0 || level > 6 || (level < len(body) && body[level] != ' ' && body[level] != '\t') {
			continue
		}
		text := bytes.TrimSpace(body[level:])
		if t := bytes.TrimRight(text, "#"); len(t) == 0 || t[len(t)-1] == ' ' || t[len(t)-1] == '\t' {
			text = bytes.TrimSpace(t)
		}
		hs = append(hs, Heading{Level: level, Text: string(text), Line: l.number})
	}
	return hs
}

// handWritten returns the page without the text between its markers: the
// part a person writes and a translator keeps in step. A page without any
// marker line is hand-written throughout. Marker errors are those of
// findRegion.
func handWritten(page []byte) ([]byte, error) {
	if !hasMarker(page) {
		return page, nil
	}
	r, err := findRegion(page)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(page)-(r.End-r.Start))
	out = append(out, page[:r.Start]...)
	return append(out, page[r.End:]...), nil
}

// ProseDigest returns "sha256:" and the hex SHA-256 of the page's
// hand-written text (see handWritten). Regenerating the region never
// changes it; editing any other byte does.
func ProseDigest(page []byte) (string, error) {
	hw, err := handWritten(page)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(hw)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// hasMarker reports whether a marker line appears outside code fences.
func hasMarker(page []byte) bool {
	for _, l := range splitLines(page) {
		if m := string(trimEOL(l.text)); !l.fenced && (m == BeginMarker || m == EndMarker) {
			return true
		}
	}
	return false
}
