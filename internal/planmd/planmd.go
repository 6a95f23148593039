// Package planmd reads a plan written in Markdown with a CommonMark parser
// (goldmark): its title and its steps. The core, the companions and the
// front ends all read plans through it, so that they agree on both.
package planmd

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// blockParser is CommonMark's block structure, each block parser wrapped
// by [opener] so that every block knows the line it starts on. No inline
// parsing is needed, and no paragraph transformer: a link reference
// definition stays a paragraph, text of the step it is in.
var blockParser = func() parser.Parser {
	var bps []util.PrioritizedValue
	for _, v := range parser.DefaultBlockParsers() {
		bps = append(bps, util.Prioritized(opener{v.Value.(parser.BlockParser)}, v.Priority))
	}
	return parser.NewParser(parser.WithBlockParsers(bps...))
}()

// opensKey holds, in a parse's context, the map from each block opened to
// the source offset of the line it was opened on.
var opensKey = parser.NewContextKey()

// opener records where each block it opens starts.
type opener struct{ parser.BlockParser }

// Open opens a block as the wrapped parser does and records its line.
func (o opener) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	_, seg := reader.PeekLine()
	n, st := o.BlockParser.Open(parent, reader, pc)
	if opens, ok := pc.Get(opensKey).(map[ast.Node]int); ok && n != nil {
		if _, seen := opens[n]; !seen {
			opens[n] = seg.Start
		}
	}
	return n, st
}

// doc is a parsed plan.
type doc struct {
	src   []byte
	root  ast.Node
	opens map[ast.Node]int
}

func parse(plan string) *doc {
	d := &doc{src: []byte(plan), opens: map[ast.Node]int{}}
	pc := parser.NewContext()
	pc.Set(opensKey, d.opens)
	d.root = blockParser.Parse(text.NewReader(d.src), parser.WithContext(pc))
	return d
}

// Title returns the text of the plan's first heading (any level, "# x" or
// underlined) that is a block of the plan itself, not inside a list, a
// quote or code, and has text: the heading's text as written, without the
// "#"s around it and the blanks at its ends, the lines of an underlined
// heading joined by a space; "" when there is none.
func Title(plan string) string {
	d := parse(plan)
	for n := d.root.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			continue
		}
		var parts []string
		lines := h.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			if s := strings.TrimSpace(string(seg.Value(d.src))); s != "" {
				parts = append(parts, s)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, " ")
		}
	}
	return ""
}

// HasTitle reports whether the plan, trimmed, opens with a level-1 ATX
// heading that names it ("# Title"): its first block is a heading of level
// 1 written with "#", followed on its line by a space or a tab and more
// than blanks ("## Title", "#Title", a bare "#" and an underlined heading
// do not). goldmark reads a carriage return after the "#" as a space;
// CommonMark ends the line there, so that is no title either.
func HasTitle(plan string) bool {
	d := parse(strings.TrimSpace(plan))
	h, ok := d.root.FirstChild().(*ast.Heading)
	if !ok || h.Level != 1 {
		return false
	}
	line, _, _ := strings.Cut(string(d.src[d.opens[h]:]), "\n")
	rest, atx := strings.CutPrefix(line, "#")
	return atx && strings.TrimSpace(rest) != "" && (rest[0] == ' ' || rest[0] == '\t')
}

// Steps returns the items of the plan's first ordered list that is a block
// of the plan itself (not inside a quote or another list), at most limit of
// them, and whether more follow. Each item is its whole content as
// Markdown: continuation lines (lazy ones too), nested lists, code blocks,
// headings and HTML stay in it, indented as they would be outside the
// list, with "\n" line ends and no blank lines at its ends. A list whose
// delimiter changes ("1)" then "1.") is two lists. Items with no text
// (blanks only) are left out.
func Steps(plan string, limit int) (steps []string, more bool) {
	d := parse(plan)
	var list *ast.List
	for n := d.root.FirstChild(); n != nil && list == nil; n = n.NextSibling() {
		if l, ok := n.(*ast.List); ok && l.IsOrdered() {
			list = l
		}
	}
	if list == nil {
		return nil, false
	}
	end := len(d.src)
	if next := list.NextSibling(); next != nil {
		end = lineStart(d.src, d.start(next))
	}
	for n := list.FirstChild(); n != nil; n = n.NextSibling() {
		item, ok := n.(*ast.ListItem)
		if !ok || item.ChildCount() == 0 {
			continue
		}
		stop := end
		if next := item.NextSibling(); next != nil {
			stop = lineStart(d.src, d.start(next))
		}
		s := itemText(string(d.src[lineStart(d.src, d.start(item)):stop]), item.Offset)
		if strings.TrimSpace(s) == "" {
			continue
		}
		if len(steps) == limit {
			return steps, true
		}
		steps = append(steps, s)
	}
	return steps, false
}

// start returns the source offset where block n starts: the earliest of
// the lines it and its descendants were opened on and of their text.
func (d *doc) start(n ast.Node) int {
	pos := len(d.src)
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || c.Type() != ast.TypeBlock {
			return ast.WalkSkipChildren, nil
		}
		if p, ok := d.opens[c]; ok {
			pos = min(pos, p)
		}
		if lines := c.Lines(); lines.Len() > 0 {
			pos = min(pos, lines.At(0).Start)
		}
		return ast.WalkContinue, nil
	})
	return pos
}

// lineStart returns the offset of the start of the line holding pos.
func lineStart(src []byte, pos int) int {
	pos = min(pos, len(src))
	for pos > 0 && src[pos-1] != '\n' {
		pos--
	}
	return pos
}

// itemText returns a list item's content from its lines: the first line
// without its marker, each line without the item's indentation (offset
// columns, fewer on a lazy continuation line), "\r\n" as "\n", without
// blank lines at either end and blanks at the end.
func itemText(src string, offset int) string {
	lines := strings.SplitAfter(src, "\n")
	first := lines[0]
	marker := len(first) - len(strings.TrimLeft(first, " "))
	for marker < len(first) && first[marker] >= '0' && first[marker] <= '9' {
		marker++
	}
	if marker < len(first) && (first[marker] == '.' || first[marker] == ')') {
		marker++
	}
	var b strings.Builder
	b.WriteString(dedent(first[marker:], marker, offset-marker))
	for _, l := range lines[1:] {
		b.WriteString(dedent(l, 0, offset))
	}
	out := strings.ReplaceAll(b.String(), "\r\n", "\n")
	// Leading blank lines go; the first line with text keeps its
	// indentation (an indented code block).
	for {
		l, rest, ok := strings.Cut(out, "\n")
		if !ok || strings.TrimSpace(l) != "" {
			break
		}
		out = rest
	}
	return strings.TrimRight(out, " \t\r\n")
}

// dedent removes up to n columns of leading spaces and tabs from line,
// which starts at column col. A tab that reaches past the n columns is
// kept as the spaces that remain of it; tabs after it become spaces too,
// so that the text keeps its columns.
func dedent(line string, col, n int) string {
	removed, i := 0, 0
	for i < len(line) && removed < n {
		switch line[i] {
		case ' ':
			removed++
			i++
		case '\t':
			w := 4 - (col+removed)%4
			if removed+w > n {
				return expandTabs(line[i:], col+removed, removed+w-n)
			}
			removed += w
			i++
		default:
			return line[i:]
		}
	}
	return line[i:]
}

// expandTabs returns s, which starts at column col with a tab, with that
// tab written as keep spaces and the blanks after it as the spaces they
// stand for.
func expandTabs(s string, col, keep int) string {
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", keep))
	col += 4 - col%4
	i := 1
	for ; i < len(s) && (s[i] == ' ' || s[i] == '\t'); i++ {
		if s[i] == ' ' {
			b.WriteByte(' ')
			col++
			continue
		}
		w := 4 - col%4
		b.WriteString(strings.Repeat(" ", w))
		col += w
	}
	b.WriteString(s[i:])
	return b.String()
}
