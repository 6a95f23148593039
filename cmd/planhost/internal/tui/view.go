package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/dshgo/planmode/host"
)

// layout fits the screen to the window at the end of every Update: the
// editors' width, what is under the page (kept in m.bottom), the page's
// height, the transcript's look, and the page's scroll. Nothing is
// rendered again that did not change.
func (m *Model) layout() {
	w := max(m.width, 10)
	m.input.SetWidth(w)
	m.feedback.SetWidth(w)
	m.bottom = m.bottomView(false)
	if r := m.review; r != nil && r.plan() && m.height-lipgloss.Height(m.bottom) < minReviewPage {
		// A small screen: the menu without its descriptions leaves room
		// for the plan.
		m.bottom = m.bottomView(true)
	}
	m.pageH = max(m.height-lipgloss.Height(m.bottom), 1)
	m.restyle(look{width: w, dark: m.dark, expand: m.expand})
	if r := m.review; r != nil && r.plan() {
		r.top = clamp(r.top, len(m.reviewBody(w))-m.pageH)
		return
	}
	if m.follow {
		m.top = m.tr.total()
	}
	m.top = clamp(m.top, m.tr.total()-m.pageH)
}

// minReviewPage is the fewest lines the page keeps for the plan under
// review (the review's title, the plan's heading, a few of its lines and
// the line that says what is below) before the menu is drawn compact.
const minReviewPage = 8

// clamp keeps a scroll position between 0 and last.
func clamp(top, last int) int { return max(min(top, last), 0) }

// page returns the lines the page shows: the plan under review, or the
// transcript.
func (m Model) page() []string {
	if r := m.review; r != nil && r.plan() {
		body := r.body.lines
		shown := body[min(r.top, len(body)):min(r.top+m.pageH, len(body))]
		if rest := len(body) - r.top - m.pageH; rest > 0 && len(shown) > 1 {
			// The last line says how much is below, and the key that
			// shows it.
			shown = append(shown[:len(shown)-1:len(shown)-1], m.st.meta.Render(fmt.Sprintf(m.cat.UI.MoreBelow, rest+1)))
		}
		return shown
	}
	return m.tr.window(m.top, m.pageH)
}

// scroll moves the page by n lines (up when negative).
func (m *Model) scroll(n int) {
	if r := m.review; r != nil && r.plan() {
		r.top += n
		return
	}
	m.top += n
	m.follow = n > 0 && m.top >= m.tr.total()-m.pageH
}

// View draws the page (the transcript, or the plan under review), the
// status line and the input (or the question's menu).
func (m Model) View() tea.View {
	if m.quit {
		return tea.NewView("")
	}
	page := m.page()
	var b strings.Builder
	for _, l := range page {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString(strings.Repeat("\n", m.pageH-len(page)))
	b.WriteString(m.bottom)
	v := tea.NewView(b.String())
	v.AltScreen = true
	if m.review != nil {
		m.review.drew(m.cfg.Now())
	}
	if m.form != nil {
		m.form.drew(m.cfg.Now())
	}
	return v
}

// bottomView is everything under the page; compact draws a review's
// menu without the entries' descriptions.
func (m *Model) bottomView(compact bool) string {
	var parts []string
	if r := m.review; r != nil {
		parts = append(parts, m.menuView(r, compact))
	}
	if m.form != nil {
		parts = append(parts, m.formView())
	}
	parts = append(parts, m.statusLine())
	switch r := m.review; {
	case r != nil && r.feedback:
		w := &m.cat.Review
		title := w.FeedbackTitle
		if r.chosen.NeedsText() {
			title = w.CommentsTitle
		}
		parts = append(parts, m.st.title.Render(title), m.feedback.View(), m.st.meta.Render(w.FeedbackHint))
	case r == nil && m.form == nil:
		parts = append(parts, m.input.View())
	}
	return strings.Join(parts, "\n")
}

// statusLine shows the mode, the model, the spinner with the elapsed time
// (while the model works, not while a question waits for the user), and
// hints.
func (m *Model) statusLine() string {
	w := &m.cat.UI
	var b strings.Builder
	if m.mode.Composed {
		b.WriteString(m.modeBadge() + " ")
	}
	if m.model != "" {
		b.WriteString(fmt.Sprintf(w.ModelStatus, m.model) + " · ")
	}
	switch {
	case m.cancelling:
		b.WriteString(w.Cancelling)
	case m.review != nil && m.review.question.Kind == host.AskReview:
		b.WriteString(w.WaitingReview)
	case m.review != nil:
		b.WriteString(w.WaitingAnswer)
	case m.form != nil:
		b.WriteString(m.cat.Form.Waiting)
	case m.busy:
		el := m.now.Sub(m.started)
		frame := spinnerFrames[int(el/tickInterval)%len(spinnerFrames)]
		b.WriteString(fmt.Sprintf(w.Working, frame, el.Truncate(time.Second)) + " · " + w.HintBusy)
	default:
		b.WriteString(w.HintIdle)
	}
	if m.notice != "" {
		b.WriteString(" · " + m.notice)
	}
	return wrap(m.st.meta.Render(b.String()), max(m.width, 10))
}

// modeBadge is the mode indicator: "plan", "default", or "default → plan"
// while a switch waits for the next step.
func (m *Model) modeBadge() string {
	w := &m.cat.Session
	name := func(active bool) string {
		if active {
			return w.ModePlan
		}
		return w.ModeDefault
	}
	text := name(m.mode.Active)
	if m.mode.target() != m.mode.Active {
		text = fmt.Sprintf(w.ModeSwitch, name(m.mode.Active), name(m.mode.target()))
	}
	if m.mode.target() {
		return m.st.modePlan.Render(" " + text + " ")
	}
	return m.st.mode.Render(" " + text + " ")
}

// styles are the UI's looks; without colour they only use attributes.
type styles struct {
	meta, user, err, reasoning, mode, modePlan, selected, added, removed, title lipgloss.Style
	noColor                                                                     bool
}

func newStyles(noColor bool) styles {
	s := styles{noColor: noColor}
	s.meta = lipgloss.NewStyle().Faint(true)
	s.reasoning = lipgloss.NewStyle().Faint(true).Italic(true)
	s.title = lipgloss.NewStyle().Bold(true)
	s.selected = lipgloss.NewStyle().Bold(true)
	s.mode = lipgloss.NewStyle().Reverse(true)
	if noColor {
		s.user = lipgloss.NewStyle().Bold(true)
		s.err = lipgloss.NewStyle().Bold(true)
		s.modePlan = lipgloss.NewStyle().Reverse(true).Bold(true)
		return s
	}
	s.user = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("12"))
	s.err = lipgloss.NewStyle().Foreground(lipgloss.Color("9"))
	s.modePlan = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("0")).Background(lipgloss.Color("13"))
	s.selected = s.selected.Foreground(lipgloss.Color("13"))
	s.added = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	s.removed = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	return s
}
