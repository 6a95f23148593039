// Package mdview renders Markdown from outside the program (a model's
// plan, a card) so that the reader sees every character of it: formatting
// may style text but never removes any.
//
// A terminal renderer (glamour) drops raw HTML, HTML comments, link
// destinations and titles, image titles, link reference definitions and
// the info string of a fenced code block. [Renderer] uses the same parser
// and the same terminal renderer, and changes the parsed document before
// it is drawn: raw HTML is shown as code, an HTML block as a code block, a
// link as its text followed by its destination and title in parentheses,
// an image the same way, an automatic link as the text it was written as
// (so no terminal hyperlink can point elsewhere than the text says), a
// fenced block's fences and info string as inline code on lines of their
// own before and after it, and a
// link reference definition as the paragraph text it is written as
// (reference links stay as written, since nothing defines them).
//
// For Markdown that another program renders (an editor over ACP),
// [Literal] and [Fence] write text that any CommonMark renderer shows
// character for character.
package mdview

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Styles are the names of the renderer's standard styles.
const (
	StyleDark  = styles.DarkStyle
	StyleLight = styles.LightStyle
	StyleNoTTY = styles.NoTTYStyle
)

// Renderer renders Markdown for a terminal without hiding any of its
// text. It is not safe for concurrent use.
type Renderer struct {
	md goldmark.Markdown
}

// ErrUnknownStyle is returned by [New] for a style name it does not know.
var ErrUnknownStyle = errors.New("unknown style")

// New returns a renderer drawing in the named standard style (see
// [StyleDark]) and wrapping words at width columns.
func New(style string, width int) (*Renderer, error) {
	st, ok := styles.DefaultStyles[style]
	if !ok {
		return nil, fmt.Errorf("mdview: %w %q", ErrUnknownStyle, style)
	}
	md := newMarkdown()
	md.SetRenderer(renderer.NewRenderer(renderer.WithNodeRenderers(
		util.Prioritized(ansi.NewRenderer(ansi.Options{Styles: *st, WordWrap: width}), 1000),
	)))
	return &Renderer{md: md}, nil
}

// newMarkdown is the parser of glamour (CommonMark, GFM, definition
// lists) without the paragraph transformer that takes link reference
// definitions out of the text; its renderer is goldmark's HTML renderer,
// which leaves raw HTML out (the document never holds any once changed).
func newMarkdown() goldmark.Markdown {
	p := parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithAutoHeadingID(),
	)
	return goldmark.New(
		goldmark.WithParser(p),
		goldmark.WithExtensions(extension.GFM, extension.DefinitionList),
	)
}

// HTML renders s as an HTML fragment that hides none of its text, with
// the same changes as [Renderer.Render]: raw HTML and HTML blocks are
// shown as code, links and images as their text with their destination
// and title (so the fragment holds no hyperlink and loads nothing), and
// info strings as written. Every text is escaped. The text should already
// be safe (no invisible characters, see safetext).
func HTML(s string) (string, error) {
	md := newMarkdown()
	src := []byte(s)
	doc := md.Parser().Parse(text.NewReader(src))
	v := &visible{src: src, extra: bytes.NewBuffer(nil), rawCode: true}
	v.transform(doc)
	var out bytes.Buffer
	if err := md.Renderer().Render(&out, append(src, v.extra.Bytes()...), doc); err != nil {
		return "", err
	}
	return out.String(), nil
}

// Render renders s. The text should already be safe for a terminal (no
// control characters, see safetext); Render hides none of it.
func (r *Renderer) Render(s string) (string, error) {
	src := []byte(s)
	doc := r.md.Parser().Parse(text.NewReader(src))
	v := &visible{src: src, extra: bytes.NewBuffer(nil)}
	v.transform(doc)
	var out bytes.Buffer
	if err := r.md.Renderer().Render(&out, append(src, v.extra.Bytes()...), doc); err != nil {
		return "", err
	}
	return out.String(), nil
}

// visible rewrites a parsed document so that the renderer shows every
// character. Text it adds is written to extra, which the renderer reads
// as the source's continuation (the document's segments index src).
type visible struct {
	src   []byte
	extra *bytes.Buffer
	// rawCode is set for a renderer that shows code as written, without
	// decoding character references in it (goldmark's HTML renderer).
	rawCode bool
}

// segment adds s to the source and returns a text node showing it as it
// is. The terminal renderer decodes character references in text, so
// every ampersand is written as one.
func (v *visible) segment(s string) *ast.Text {
	return v.add(strings.ReplaceAll(s, "&", "&amp;"))
}

// add adds s to the source as it is and returns a text node of it.
func (v *visible) add(s string) *ast.Text {
	start := len(v.src) + v.extra.Len()
	v.extra.WriteString(s)
	return ast.NewTextSegment(text.NewSegment(start, len(v.src)+v.extra.Len()))
}

// code is s shown as inline code.
func (v *visible) code(s string) ast.Node {
	c := ast.NewCodeSpan()
	if v.rawCode {
		c.AppendChild(c, v.add(s))
	} else {
		c.AppendChild(c, v.segment(s))
	}
	return c
}

// transform rewrites the nodes the renderer would drop or hide.
func (v *visible) transform(doc ast.Node) {
	var nodes []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindRawHTML, ast.KindHTMLBlock, ast.KindLink, ast.KindAutoLink, ast.KindImage, ast.KindFencedCodeBlock:
			nodes = append(nodes, n)
		}
		return ast.WalkContinue, nil
	})
	for _, n := range nodes {
		switch n := n.(type) {
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				b.Write(seg.Value(v.src))
			}
			// Inline code holds one line: a tag written over several
			// lines is shown on one.
			replace(n, v.code(strings.ReplaceAll(b.String(), "\n", " ")))
		case *ast.HTMLBlock:
			cb := ast.NewCodeBlock()
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				cb.Lines().Append(lines.At(i))
			}
			if n.HasClosure() {
				cb.Lines().Append(n.ClosureLine)
			}
			replace(n, cb)
		case *ast.Link:
			unwrap(n, v.segment(target(n.Destination, n.Title)))
		case *ast.AutoLink:
			replace(n, v.segment(string(n.Label(v.src))))
		case *ast.Image:
			n.Parent().InsertBefore(n.Parent(), n, v.segment("!["))
			unwrap(n, v.segment("]"+target(n.Destination, n.Title)))
		case *ast.FencedCodeBlock:
			if n.Info == nil {
				continue
			}
			// The block keeps its language for highlighting; a line before
			// it shows its opening fence and info string as written, a
			// line after it the closing fence. In a list item the
			// terminal renderer runs paragraphs together: the text before
			// the block ends with a line break, so that the fence starts a
			// line of its own.
			info := n.Info.Segment
			lineStart := bytes.LastIndexByte(v.src[:info.Start], '\n') + 1
			fence := strings.TrimSpace(string(v.src[lineStart:info.Start]))
			parent := n.Parent()
			if prev := n.PreviousSibling(); prev != nil && parent.Kind() == ast.KindListItem && !v.rawCode {
				br := v.add("")
				br.SetHardLineBreak(true)
				prev.AppendChild(prev, br)
			}
			open, closing := ast.NewParagraph(), ast.NewParagraph()
			open.AppendChild(open, v.code(fence+string(info.Value(v.src))))
			closing.AppendChild(closing, v.code(fence))
			parent.InsertBefore(parent, n, open)
			parent.InsertAfter(parent, n, closing)
		}
	}
}

// target is how a link's destination and title are shown after its text.
func target(dest, title []byte) string {
	s := " (" + string(dest)
	if len(title) > 0 {
		s += ` "` + string(title) + `"`
	}
	return s + ")"
}

// replace puts m where n is.
func replace(n, m ast.Node) {
	n.Parent().ReplaceChild(n.Parent(), n, m)
}

// unwrap replaces n by its children followed by after.
func unwrap(n, after ast.Node) {
	parent := n.Parent()
	for c := n.FirstChild(); c != nil; {
		next := c.NextSibling()
		parent.InsertBefore(parent, n, c)
		c = next
	}
	parent.ReplaceChild(parent, n, after)
}

// Literal returns s written as Markdown that shows s as it is, but for
// the indentation of its lines: every ASCII punctuation character is
// escaped with a backslash, so nothing in it is read as HTML, a link, a
// character reference or formatting, and lines lose their leading spaces
// and tabs, so none is read as code. Use it for short texts another
// program renders (a plan entry).
func Literal(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		line = strings.TrimLeft(line, " \t")
		for j := 0; j < len(line); j++ {
			if strings.IndexByte(asciiPunctuation, line[j]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(line[j])
		}
	}
	return b.String()
}

// asciiPunctuation are the characters CommonMark lets a backslash escape.
const asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// Fence returns s as a fenced code block of Markdown, which a renderer
// shows character for character: the fence is longer than any run of
// backticks in s, so s cannot close it. Use it for a plan another program
// renders.
func Fence(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return fence + FenceInfo + "\n" + s + fence
}

// FenceInfo is the info string of the blocks [Fence] writes: editors
// highlight the plan as Markdown source.
const FenceInfo = "markdown"
