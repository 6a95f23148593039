package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/internal/present"
)

// transcript is what the screen shows outside a plan review: the
// session's items, each rendered once for the look and kept, then the
// answer streaming in, of which each frame renders only the unfinished
// end. A frame takes only the lines it shows (window).
type transcript struct {
	items []present.Item
	// lines[i] is items[i] rendered for look; ends[i] counts the lines
	// of items[:i+1].
	lines [][]string
	ends  []int
	look  look

	// text and reasoning are the streamed answer so far (escaped). done
	// is text[:cut] wrapped, up to its last newline; live is the streamed
	// part as the last frame rendered it; fresh says pieces came since.
	text, reasoning string
	cut             int
	done, live      []string
	fresh           bool
}

// look is what an item's rendering depends on besides the item.
type look struct {
	width        int
	dark, expand bool
}

// items counts the lines of the rendered items.
func (t *transcript) count() int {
	if len(t.ends) == 0 {
		return 0
	}
	return t.ends[len(t.ends)-1]
}

// total counts the lines shown.
func (t *transcript) total() int { return t.count() + len(t.live) }

// window returns at most n lines from line top.
func (t *transcript) window(top, n int) []string {
	out := make([]string, 0, n)
	i := sort.SearchInts(t.ends, top+1) // the item holding line top
	from := top
	if i > 0 && i <= len(t.ends) {
		from = top - t.ends[i-1]
	}
	for ; i < len(t.lines) && len(out) < n; i++ {
		ls := t.lines[i][from:]
		out = append(out, ls[:min(len(ls), n-len(out))]...)
		from = 0
	}
	if at := top + len(out) - t.count(); at >= 0 && at < len(t.live) {
		out = append(out, t.live[at:min(len(t.live), at+n-len(out))]...)
	}
	return out
}

// add shows items (the internal ones only with -verbose).
func (m *Model) add(items ...present.Item) {
	t := &m.tr
	for _, it := range items {
		if it.Internal && !m.cfg.Verbose {
			continue
		}
		t.items = append(t.items, it)
		t.lines = append(t.lines, m.render(it, t.look.width))
		t.ends = append(t.ends, t.count()+len(t.lines[len(t.lines)-1]))
	}
}

// note shows a line of the UI's own.
func (m *Model) note(kind present.Kind, text string) {
	m.add(present.Item{Kind: kind, Text: text})
}

// restyle renders the transcript for l, when it was rendered for another
// look: a new width, background or folding of the model's thinking.
func (m *Model) restyle(l look) {
	t := &m.tr
	if t.look == l {
		return
	}
	t.look = l
	for i, it := range t.items {
		t.lines[i] = m.render(it, l.width)
		t.ends[i] = len(t.lines[i])
		if i > 0 {
			t.ends[i] += t.ends[i-1]
		}
	}
	t.cut, t.done = 0, nil
	m.renderLive()
}

// stream adds a streamed piece of the answer; the next frame shows it.
func (t *transcript) stream(text, reasoning string) {
	t.text += text
	t.reasoning += reasoning
	t.fresh = true
}

// endStream drops the streamed answer (the logged one replaces it).
func (t *transcript) endStream() {
	t.text, t.reasoning, t.cut, t.done, t.live, t.fresh = "", "", 0, nil, nil, false
}

// renderLive renders the streamed answer: the end of the thinking, the
// lines of text not wrapped yet, and the line still being written.
func (m *Model) renderLive() {
	t := &m.tr
	w := t.look.width
	t.fresh = false
	if i := strings.LastIndexByte(t.text, '\n'); i >= t.cut {
		t.done = append(t.done, strings.Split(wrapLines(t.text[t.cut:i], w), "\n")...)
		t.cut = i + 1
	}
	t.live = nil
	if t.reasoning != "" {
		t.live = lines(m.st.reasoning.Render(wrapLines(m.cat.UI.Thinking+"\n"+lastLines(t.reasoning, 6), w)))
	}
	t.live = append(t.live, t.done...)
	if rest := t.text[t.cut:]; rest != "" {
		t.live = append(t.live, lines(wrapLines(rest, w))...)
	}
}

// lastLines is the end of s, at most n lines.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		i = strings.LastIndexByte(s[:i], '\n')
	}
	return s[i+1:]
}

// render draws one item at width w, escaping what it carries from the
// model, a tool or the log.
func (m *Model) render(it present.Item, w int) []string {
	s := m.cfg.Sanitize
	switch it.Kind {
	case present.Note, present.Rule, present.Reply:
		return lines(m.st.meta.Render(wrapLines(s(it.Text), w)))
	case present.User:
		return lines(m.st.user.Render(wrapLines("› "+s(it.Text), w)))
	case present.Assistant:
		return lines(wrapLines(m.cat.Session.Assistant+s(it.Text), w))
	case present.Reasoning:
		if !m.tr.look.expand {
			n := strings.Count(strings.TrimRight(it.Text, "\n"), "\n") + 1
			return lines(m.st.reasoning.Render(wrap(fmt.Sprintf(m.cat.UI.ReasoningFolded, n), w)))
		}
		return lines(m.st.reasoning.Render(wrapLines(m.cat.UI.ReasoningShown+"\n"+s(it.Text), w)))
	case present.Error:
		return lines(m.st.err.Render(wrapLines(s(it.Text), w)))
	case present.Plan:
		head := m.st.meta.Render(wrap("▍"+fmt.Sprintf(m.cat.Session.PlanTitle, s(it.Title)), w))
		return append(lines(head), lines(m.markdown(it.Text, w))...)
	case present.Diff:
		return append(lines(m.st.title.Render(wrap(s(it.Title), w))), lines(m.diffView(s(it.Text), w))...)
	case present.Box:
		return m.box(it, w)
	}
	return lines(wrapLines(s(it.Text), w))
}

// box draws a companion's box in a rounded border with its title in the
// top border: a row a line (completed rows struck through, the one in
// progress bold), a row's note under it, and the footer.
func (m *Model) box(it present.Item, w int) []string {
	s := m.cfg.Sanitize
	inner := max(w-4, 10)
	title := s(it.Title)
	var rows []string
	if ansi.StringWidth(title) > inner-2 { // too long for the border
		rows = lines(m.st.title.Render(wrap(title, inner)))
		title = ""
	}
	for _, r := range it.Rows {
		style := lipgloss.NewStyle()
		switch r.Status {
		case present.Completed:
			style = style.Strikethrough(true)
		case present.InProgress:
			style = style.Bold(true)
		}
		prefix := ""
		if mark := r.Status.Mark(); mark != "" {
			prefix = mark + " "
		}
		rows = append(rows, indented(prefix, style, s(r.Text), inner)...)
		if r.Note != "" {
			rows = append(rows, indented(strings.Repeat(" ", ansi.StringWidth(prefix)+2), m.st.meta, s(r.Note), inner)...)
		}
	}
	if it.Footer != "" {
		rows = append(rows, lines(m.st.meta.Render(wrap(s(it.Footer), inner)))...)
	}
	width := ansi.StringWidth(title) + 2
	for _, r := range rows {
		width = max(width, ansi.StringWidth(r))
	}
	b := lipgloss.RoundedBorder()
	top := b.TopLeft + strings.Repeat(b.Top, width+2) + b.TopRight
	if title != "" {
		top = b.TopLeft + b.Top + " " + title + " " + strings.Repeat(b.Top, width-ansi.StringWidth(title)-1) + b.TopRight
	}
	out := []string{m.st.meta.Render(top)}
	for _, r := range rows {
		out = append(out, m.st.meta.Render(b.Left)+" "+r+strings.Repeat(" ", width-ansi.StringWidth(r))+" "+m.st.meta.Render(b.Right))
	}
	return append(out, m.st.meta.Render(b.BottomLeft+strings.Repeat(b.Bottom, width+2)+b.BottomRight))
}

// diffView colours a unified diff wrapped to width; a wrapped line keeps
// its marker (+, - or a space) and its colour on every piece.
func (m *Model) diffView(diff string, width int) string {
	var out []string
	for l := range strings.SplitSeq(diff, "\n") {
		style := m.st.meta
		switch {
		case strings.HasPrefix(l, "+"):
			style = m.st.added
		case strings.HasPrefix(l, "-"):
			style = m.st.removed
		}
		if strings.HasPrefix(l, "@@") || l == "" || width < 4 {
			out = append(out, style.Render(wrap(l, width)))
			continue
		}
		marker, rest := l[:1], l[1:]
		for piece := range strings.SplitSeq(wrap(rest, width-1), "\n") {
			out = append(out, style.Render(marker+piece))
		}
	}
	return strings.Join(out, "\n")
}

// markdown renders text at width, in the style that fits the terminal
// (dark or light; no escape sequences without colour), showing every
// character of it: raw HTML, comments, link targets and reference
// definitions are shown as text, never dropped (see mdview).
func (m *Model) markdown(text string, width int) string {
	style := mdview.StyleDark
	switch {
	case m.st.noColor:
		style = mdview.StyleNoTTY
	case !m.dark:
		style = mdview.StyleLight
	}
	c := m.md
	key := fmt.Sprintf("%s/%d", style, width)
	if c.r == nil || c.key != key {
		r, err := mdview.New(style, width)
		if err != nil {
			return wrapLines(m.cfg.Sanitize(text), width)
		}
		c.r, c.key, c.out = r, key, ""
	}
	if c.out != "" && c.text == text {
		return c.out
	}
	out, err := c.r.Render(m.cfg.Markdown(text))
	if err != nil {
		return wrapLines(m.cfg.Sanitize(text), width)
	}
	ls := lines(m.cfg.Rendered(out))
	for i, l := range ls {
		ls[i] = trimPadding(l)
	}
	c.text, c.out = text, strings.Trim(strings.Join(ls, "\n"), "\n")
	return c.out
}

// mdCache keeps the Markdown renderer of one style and width, and what it
// rendered last: the plan a review shows is the plan the transcript just
// showed, at the same width.
type mdCache struct {
	r              *mdview.Renderer
	key, text, out string
}

// trimPadding cuts the spaces a renderer padded a line with, styled or
// not, so that wrapped text carries no padding.
func trimPadding(l string) string {
	plain := ansi.Strip(l)
	trimmed := strings.TrimRight(plain, " ")
	if len(trimmed) == len(plain) {
		return l
	}
	if !strings.Contains(l, "\x1b") {
		return trimmed
	}
	return ansi.Truncate(l, ansi.StringWidth(trimmed), "") + "\x1b[m"
}

// lines splits rendered text into its lines.
func lines(s string) []string { return strings.Split(s, "\n") }

// wrap wraps text to width without padding.
func wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	return ansi.Wrap(s, width, " ")
}

// wrapLines wraps each line of s.
func wrapLines(s string, w int) string {
	ls := lines(s)
	for i, l := range ls {
		ls[i] = wrap(l, w)
	}
	return strings.Join(ls, "\n")
}

// indented is text in style, wrapped to width after prefix, its lines
// after the first lined up under the first.
func indented(prefix string, style lipgloss.Style, text string, width int) []string {
	n := ansi.StringWidth(prefix)
	out := lines(wrap(text, width-n))
	for i, l := range out {
		out[i] = strings.Repeat(" ", n) + style.Render(l)
	}
	out[0] = prefix + out[0][n:]
	return out
}

// hang wraps s to width with the lines after the first indented by n.
func hang(s string, width, n int) string {
	if width <= n+10 {
		return wrap(s, width)
	}
	first := wrap(s, width)
	head, rest, ok := strings.Cut(first, "\n")
	if !ok {
		return first
	}
	pad := strings.Repeat(" ", n)
	rest = wrap(strings.ReplaceAll(rest, "\n", " "), width-n)
	return head + "\n" + pad + strings.ReplaceAll(rest, "\n", "\n"+pad)
}
