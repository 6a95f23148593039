package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/internal/planmd"
)

// sideBySideWidth is the width from which a revised plan's diff is shown
// beside the plan rather than above it.
const sideBySideWidth = 120

// layout sizes the viewport and the editors to the window and refreshes
// the viewport's content. It runs at the end of every Update.
func (m *Model) layout() {
	w := max(m.width, 10)
	m.input.SetWidth(w)
	m.feedback.SetWidth(w)
	bottom := lipgloss.Height(m.bottomView())
	m.vp.SetWidth(w)
	m.vp.SetHeight(max(m.height-bottom, 1))
	if m.review != nil {
		off := m.vp.YOffset()
		m.vp.SetContent(m.reviewBody(w))
		m.vp.SetYOffset(off)
		return
	}
	m.vp.SetContent(m.transcript(w))
	if m.follow {
		m.vp.GotoBottom()
	}
}

// View draws the transcript (or the plan under review), the status line
// and the input (or the review menu).
func (m Model) View() tea.View {
	v := tea.NewView(m.vp.View() + "\n" + m.bottomView())
	v.AltScreen = true
	if m.review != nil {
		m.review.drew(m.cfg.Now())
	}
	if m.form != nil {
		m.form.drew(m.cfg.Now())
	}
	if m.quit {
		v = tea.NewView("")
	}
	return v
}

// bottomView is everything under the viewport.
func (m Model) bottomView() string {
	var parts []string
	if r := m.review; r != nil {
		parts = append(parts, m.menuView(r))
	}
	if m.form != nil {
		parts = append(parts, m.formView())
	}
	parts = append(parts, m.statusLine())
	switch {
	case m.review != nil && m.review.feedback:
		title := m.cat.FeedbackTitle
		if m.review.comments {
			title = m.cat.CommentsTitle
		}
		parts = append(parts, m.st.title.Render(title), m.feedback.View(), m.st.meta.Render(m.cat.FeedbackHint))
	case m.review == nil && m.form == nil:
		parts = append(parts, m.input.View())
	}
	return strings.Join(parts, "\n")
}

// statusLine shows the mode, the spinner with the elapsed time, and hints.
func (m Model) statusLine() string {
	var b strings.Builder
	if m.mode.Composed {
		b.WriteString(m.modeBadge())
		b.WriteString(" ")
	}
	if m.model != "" {
		b.WriteString(fmt.Sprintf(m.cat.ModelStatus, m.model) + " · ")
	}
	switch {
	case m.cancelling:
		b.WriteString(m.cat.Cancelling)
	case m.review != nil && m.review.plan:
		// The model waits for the user: no spinner, no clock.
		b.WriteString(m.cat.WaitingReview)
	case m.review != nil:
		b.WriteString(m.cat.WaitingAnswer)
	case m.busy:
		el := m.now.Sub(m.started)
		frame := spinnerFrames[int(el/tickInterval)%len(spinnerFrames)]
		b.WriteString(fmt.Sprintf(m.cat.Working, frame, el.Truncate(time.Second)))
		b.WriteString(" · " + m.cat.HintBusy)
	default:
		b.WriteString(m.cat.HintIdle)
	}
	if m.note != "" {
		b.WriteString(" · " + m.note)
	}
	return wrap(m.st.meta.Render(b.String()), max(m.width, 10))
}

// modeBadge is the mode indicator: "plan", "default", or "default → plan"
// while a switch waits for the next step.
func (m Model) modeBadge() string {
	name := func(active bool) string {
		if active {
			return m.cat.ModePlan
		}
		return m.cat.ModeDefault
	}
	text := name(m.mode.Active)
	if m.mode.target() != m.mode.Active {
		text = fmt.Sprintf(m.cat.ModeSwitch, name(m.mode.Active), name(m.mode.target()))
	}
	if m.mode.target() {
		return m.st.modePlan.Render(" " + text + " ")
	}
	return m.st.mode.Render(" " + text + " ")
}

// menuView is the review's question and options.
func (m Model) menuView(r *review) string {
	q := r.req.Questions[r.q]
	var lines []string
	head := m.cat.ReviewQuestion
	if r.changed {
		head = m.cat.ReviewChangedQuestion
	}
	if !r.plan {
		head = m.cfg.Sanitize(q.Question)
		if w, ok := m.cat.question(r.req); ok && w.Question != "" {
			head = w.Question
		}
		if fields := m.cat.fields(r.req, q, m.cfg.Sanitize); fields != nil {
			for _, f := range fields {
				lines = append(lines, wrap(f, m.width))
			}
		} else if d := strings.TrimSpace(q.Detail); d != "" {
			lines = append(lines, wrap(m.cfg.Sanitize(d), m.width))
		}
	}
	lines = append(lines, m.st.title.Render(wrap(head, m.width)))
	if r.planFile != "" {
		lines = append(lines, m.st.meta.Render(wrap(fmt.Sprintf(m.cat.ReviewPlanFile, r.planFile), m.width)))
	}
	if r.edited {
		lines = append(lines, m.st.meta.Render(wrap(m.cat.ReviewEditedNote, m.width)))
	}
	if r.problem != "" {
		lines = append(lines, m.st.err.Render(wrap(r.problem, m.width)))
	}
	for i, o := range r.options {
		line := fmt.Sprintf("[%s] %s", o.key, o.label)
		if o.desc != "" {
			line += " — " + o.desc
		}
		if i == r.cursor {
			lines = append(lines, m.st.selected.Render(hang("❯ "+line, m.width, 6)))
		} else {
			lines = append(lines, hang("  "+line, m.width, 6))
		}
	}
	hint := m.cat.QuestionHint
	switch {
	case r.plan && planDiff(r.previous, r.text) != "" && m.width < sideBySideWidth:
		hint = m.cat.ReviewHintDiff
	case r.plan:
		hint = m.cat.ReviewHint
	}
	lines = append(lines, m.st.meta.Render(wrap(hint, m.width)))
	return strings.Join(lines, "\n")
}

// reviewBody is what the viewport shows during a plan review: what changed
// since the previous plan (beside the plan on a wide terminal) and the plan.
func (m *Model) reviewBody(width int) string {
	r := m.review
	if !r.plan {
		return m.transcript(width)
	}
	heading := fmt.Sprintf(m.cat.ReviewTitle, planmd.Title(r.text))
	if planmd.Title(r.text) == "" {
		heading = strings.TrimRight(heading, " :：")
	}
	title := m.st.title.Render(wrap(heading, width))
	diff := planDiff(r.previous, r.text)
	if diff == "" {
		return title + "\n\n" + m.markdown(r.text, width)
	}
	if width >= sideBySideWidth {
		half := (width - 3) / 2
		left := m.st.title.Render(m.cat.ReviewChanged) + "\n" + m.diffView(diff, half)
		right := m.st.title.Render(m.cat.ReviewFullPlan) + "\n" + m.markdown(r.text, half)
		return title + "\n\n" + lipgloss.JoinHorizontal(lipgloss.Top, lipgloss.NewStyle().Width(half).Render(left), " │ ", right)
	}
	// Narrower, a long diff is one line until v shows it (diffShown).
	if !m.diffShown(diff) {
		added, removed := diffCounts(diff)
		return title + "\n" + m.st.meta.Render(wrap(fmt.Sprintf(m.cat.ReviewChangedSummary, added, removed), width)) + "\n\n" +
			m.markdown(r.text, width)
	}
	return title + "\n\n" + m.st.title.Render(wrap(m.cat.ReviewChangedShown, width)) + "\n" + m.diffView(diff, width) + "\n\n" +
		m.st.title.Render(wrap(m.cat.ReviewFullPlan, width)) + "\n" + m.markdown(r.text, width)
}

// diffView colours a unified diff wrapped to width; a wrapped line keeps
// its marker (+, - or a space) and its colour on every piece.
func (m *Model) diffView(diff string, width int) string {
	var out []string
	for _, l := range strings.Split(diff, "\n") {
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
		for _, piece := range strings.Split(wrap(rest, width-1), "\n") {
			out = append(out, style.Render(marker+piece))
		}
	}
	return strings.Join(out, "\n")
}

// diffCounts counts the lines a unified diff adds and removes.
func diffCounts(diff string) (added, removed int) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
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

// wrapLines wraps each line of s.
func wrapLines(s string, w int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = wrap(l, w)
	}
	return strings.Join(lines, "\n")
}

// transcript renders the entries (cached per width and look) and the
// streamed answer so far.
func (m *Model) transcript(width int) string {
	c := m.render
	if c.width != width || c.dark != m.dark || c.expand != m.expand {
		c.width, c.dark, c.expand, c.lines = width, m.dark, m.expand, nil
	}
	for i := len(c.lines); i < len(m.entries); i++ {
		c.lines = append(c.lines, m.renderEntry(m.entries[i], width))
	}
	out := strings.Join(c.lines, "\n")
	if m.liveReasoning != "" {
		out += "\n" + m.st.reasoning.Render(wrapLines(m.cat.Thinking+"\n"+lastLines(m.liveReasoning, 6), width))
	}
	if m.liveText != "" {
		out += "\n" + wrapLines(m.liveText, width)
	}
	return out
}

// lastLines is the end of s, at most n lines.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// renderEntry draws one entry at width.
func (m *Model) renderEntry(e Entry, width int) string {
	switch e.Kind {
	case KindMeta:
		return m.st.meta.Render(wrapLines(e.Text, width))
	case KindUser:
		return m.st.user.Render(wrapLines("› "+e.Text, width))
	case KindError:
		return m.st.err.Render(wrapLines(e.Text, width))
	case KindMarkdown:
		return m.markdown(e.Text, width)
	case KindReasoning:
		n := strings.Count(strings.TrimRight(e.Text, "\n"), "\n") + 1
		if !m.expand {
			return m.st.reasoning.Render(wrap(fmt.Sprintf(m.cat.ReasoningCollapsed, n), width))
		}
		return m.st.reasoning.Render(wrapLines(m.cat.ReasoningExpanded+"\n"+e.Text, width))
	}
	return wrapLines(e.Text, width)
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
	c := m.render
	keyStr := fmt.Sprintf("%s/%d", style, width)
	if c.md == nil || c.mdKey != keyStr {
		r, err := mdview.New(style, width)
		if err != nil {
			return wrapLines(m.cfg.Sanitize(text), width)
		}
		c.md, c.mdKey = r, keyStr
	}
	out, err := c.md.Render(m.cfg.Markdown(text))
	if err != nil {
		return wrapLines(m.cfg.Sanitize(text), width)
	}
	out = m.cfg.Rendered(out)
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = trimPadding(l)
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
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
