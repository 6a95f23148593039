package mdview

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Text returns Markdown s as plain text, for a line of a box or a list
// that draws no Markdown (a plan's step): what [Renderer] shows, without
// the syntax around it. Inline code loses its backticks, emphasis its
// marks, a heading its "#"s and a code block its fences; list items are
// marked "•" or by their number, blocks and lines end in "\n", table
// cells are joined by " | ". Nothing is hidden: raw HTML, link
// destinations and titles, a fenced block's info string (on the line
// before the code) and link reference definitions are text as [Renderer]
// shows them. Like Render, it expects text made safe first (see
// safetext.Markdown) and leaves control characters to the caller.
func Text(s string) string {
	src := []byte(s)
	doc := newMarkdown().Parser().Parse(text.NewReader(src))
	v := &visible{src: src, extra: bytes.NewBuffer(nil)}
	v.transform(doc)
	w := &textWriter{src: append(src, v.extra.Bytes()...)}
	w.node(doc)
	return strings.TrimSpace(w.b.String())
}

// textWriter writes a document's text.
type textWriter struct {
	src   []byte
	b     strings.Builder
	brk   bool // a block ended: the next text starts a line
	table bool // a table cell ended: the next one is set off by " | "
}

// write writes s, on a new line when a block ended before it.
func (w *textWriter) write(s string) {
	if w.brk && w.b.Len() > 0 {
		w.b.WriteByte('\n')
	}
	w.brk = false
	w.b.WriteString(s)
}

// lines writes a code block's lines as they are.
func (w *textWriter) lines(n ast.Node) {
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		w.write(strings.TrimRight(string(seg.Value(w.src)), "\n"))
		w.brk = true
	}
}

// node writes n and its children.
func (w *textWriter) node(n ast.Node) {
	switch n := n.(type) {
	case *ast.Text:
		w.write(html.UnescapeString(string(n.Segment.Value(w.src))))
		switch {
		case n.HardLineBreak():
			w.b.WriteByte('\n')
		case n.SoftLineBreak():
			w.b.WriteByte(' ')
		}
		return
	case *ast.String:
		w.write(string(n.Value))
		return
	case *ast.CodeBlock, *ast.FencedCodeBlock:
		w.lines(n)
		w.brk = true
		return
	case *ast.ThematicBreak:
		w.write("---")
		w.brk = true
		return
	case *ast.ListItem:
		marker := "• "
		if l, ok := n.Parent().(*ast.List); ok && l.IsOrdered() {
			i := l.Start
			for c := l.FirstChild(); c != nil && c != ast.Node(n); c = c.NextSibling() {
				i++
			}
			marker = fmt.Sprintf("%d%c ", i, l.Marker)
		}
		w.write(marker)
	case *east.TaskCheckBox:
		if n.IsChecked {
			w.write("[x] ")
		} else {
			w.write("[ ] ")
		}
		return
	case *east.TableCell:
		if w.table {
			w.write(" | ")
		}
		w.table = true
	case *east.TableRow, *east.TableHeader:
		w.table = false
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.node(c)
	}
	if _, cell := n.(*east.TableCell); n.Type() == ast.TypeBlock && !cell {
		w.brk = true
	}
}
