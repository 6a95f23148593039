package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// parse reads page as CommonMark with goldmark. Its ATX heading parser is
// wrapped by atxHeading, ahead of the default one (priority 600).
func parse(page []byte) ast.Node {
	md := goldmark.New(goldmark.WithParserOptions(parser.WithBlockParsers(
		util.Prioritized(atxHeading{parser.NewATXHeadingParser()}, 599))))
	return md.Parser().Parse(text.NewReader(page))
}

// atxHeading gives an empty ATX heading ("#"), which has no text, an empty
// text segment at the start of its line, so that every heading's first
// segment tells its line.
type atxHeading struct{ parser.BlockParser }

// Open opens a heading as the wrapped parser does.
func (p atxHeading) Open(parent ast.Node, r text.Reader, pc parser.Context) (ast.Node, parser.State) {
	_, seg := r.PeekLine()
	n, st := p.BlockParser.Open(parent, r, pc)
	if n != nil && n.Lines().Len() == 0 {
		n.Lines().Append(text.NewSegment(seg.Start, seg.Start))
	}
	return n, st
}

// line is one line of a page.
type line struct {
	// text is the line including its line ending, if any.
	text []byte
	// offset is the position of the line's first byte in the page.
	offset int
	// number is the 1-based line number.
	number int
}

// markerLines returns the page's marker lines: lines that are
// [BeginMarker] or [EndMarker] exactly, but for their line ending, and are
// not in a code block (fenced or indented) as goldmark reads the page.
func markerLines(page []byte) (begins, ends []line) {
	code := map[int]bool{} // offsets of the lines in code blocks
	_ = ast.Walk(parse(page), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			for i := range n.Lines().Len() {
				code[bytes.LastIndexByte(page[:n.Lines().At(i).Start], '\n')+1] = true
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for off, n := 0, 1; off < len(page); n++ {
		end := len(page)
		if i := bytes.IndexByte(page[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		l := line{text: page[off:end], offset: off, number: n}
		if !code[off] {
			switch string(bytes.TrimSuffix(bytes.TrimSuffix(l.text, []byte("\n")), []byte("\r"))) {
			case BeginMarker:
				begins = append(begins, l)
			case EndMarker:
				ends = append(ends, l)
			}
		}
		off = end
	}
	return begins, ends
}

// Heading is one heading of a Markdown page.
type Heading struct {
	// Level is the heading's level, 1 to 6.
	Level int
	// Text is the heading's text as written, without the '#' characters
	// around it and blanks at its ends; an underlined heading's lines are
	// joined by a space.
	Text string
	// Line is the heading's 1-based line number.
	Line int
}

// Headings returns the page's headings ("# Title" or underlined), as
// goldmark reads the page, in page order. Two language versions of a page
// share one heading structure: the same levels in the same order.
func Headings(page []byte) []Heading {
	var hs []Heading
	_ = ast.Walk(parse(page), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !ok || !entering || h.Lines().Len() == 0 {
			return ast.WalkContinue, nil
		}
		parts := make([]string, h.Lines().Len())
		for i := range parts {
			seg := h.Lines().At(i)
			parts[i] = strings.TrimSpace(string(seg.Value(page)))
		}
		start := h.Lines().At(0).Start
		hs = append(hs, Heading{Level: h.Level, Text: strings.Join(parts, " "), Line: bytes.Count(page[:start], []byte("\n")) + 1})
		return ast.WalkSkipChildren, nil
	})
	return hs
}

// handWritten returns the page without the text between its markers: the
// part a person writes and a translator keeps in step. A page without any
// marker line is hand-written throughout. Marker errors are those of
// findRegion.
func handWritten(page []byte) ([]byte, error) {
	begins, ends := markerLines(page)
	if len(begins) == 0 && len(ends) == 0 {
		return page, nil
	}
	r, err := regionOf(begins, ends)
	if err != nil {
		return nil, err
	}
	return slices.Concat(page[:r.Start], page[r.End:]), nil
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
