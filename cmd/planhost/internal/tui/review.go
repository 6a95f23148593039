package tui

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dshgo/planmode/cmd/planhost/internal/reviewgate"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
)

// sideBySideWidth is the width from which a revised plan's diff is shown
// beside the plan rather than above it.
const sideBySideWidth = 120

// noCursor is the cursor of a menu with no entry highlighted.
const noCursor = -1

// errDismissed is the answer of a dismissed question.
var errDismissed = fmt.Errorf("dismissed by the user: %w", host.ErrDismissed)

// review is a question answered from its menu (present.Question): a plan
// review, with the plan on the page and what changed, or a consent, with
// the transcript on the page. What it shows is rendered once and kept.
type review struct {
	id    int
	req   host.AskRequest
	log   host.Log
	reply chan<- AskResult
	// q is the question asked now, question what present shows of it.
	q        int
	question present.Question
	answers  []host.Answer
	// cursor is the highlighted entry; noCursor until the user moves to
	// one, so that Enter alone answers nothing.
	cursor int
	// feedback is set while the user writes the text chosen asks for.
	feedback bool
	chosen   present.Choice
	// text is the plan under review, escaped: the user's edit once
	// edited is set. diffTitle and diff are what changed: the question's,
	// or the edit's.
	text            string
	edited          bool
	diffTitle, diff string
	// gate keeps keys typed before the question (or the edited plan) was
	// drawn, or in a burst of typing, from answering it; drawn is set once
	// the UI drew it.
	gate  reviewgate.Gate
	drawn bool
	// problem is shown in the menu until the next key: the editor failed.
	problem string
	// diffToggled is set when v swapped the diff and its summary (see
	// diffShown); top is the first line of the plan on the page.
	diffToggled bool
	top         int
	// markdown, diffView and body are the plan and what changed rendered,
	// and the page, kept until what they show changes.
	markdown, diffView, body cache
}

// cache keeps lines rendered for a key.
type cache struct {
	key   any
	lines []string
}

// get returns the lines kept for key, rendering them first if needed.
func (c *cache) get(key any, render func() []string) []string {
	if c.lines == nil || c.key != key {
		c.key, c.lines = key, render()
	}
	return c.lines
}

// plan reports whether the question is a plan review.
func (r *review) plan() bool { return r.question.Kind == host.AskReview }

// ask shows a question request: the model's questions as a form, any
// other as a review. A new request replaces one the agent withdrew.
func (m *Model) ask(msg AskMsg) {
	m.closeForm()
	m.closeReview()
	if len(msg.Request.Questions) == 0 {
		msg.Reply <- AskResult{}
		return
	}
	if msg.Request.Kind == host.AskClarify {
		m.form = &form{id: msg.ID, req: msg.Request, log: msg.Log, reply: msg.Reply}
		m.formQuestion()
	} else {
		m.review = &review{id: msg.ID, req: msg.Request, log: msg.Log, reply: msg.Reply}
		m.reviewQuestion()
	}
	m.input.Blur()
}

// askGone closes the question with id, which the agent withdrew. The
// transcript says how it ended once the log has it (the review's outcome,
// the questions' box), in order: the error it was withdrawn with is the
// model's.
func (m *Model) askGone(id int) {
	switch {
	case m.form != nil && m.form.id == id:
		m.closeForm()
	case m.review != nil && m.review.id == id:
		m.closeReview()
	}
}

// reviewQuestion shows the current question, with no entry highlighted
// and the keys asleep until the keyboard is quiet.
func (m *Model) reviewQuestion() {
	r := m.review
	r.question = m.cat.Question(r.req, r.q, r.log, true)
	r.text, r.edited = m.cfg.Sanitize(r.question.Detail), false
	r.diffTitle, r.diff = r.question.DiffTitle, r.question.Diff
	r.feedback, r.diffToggled, r.top = false, false, 0
	r.rearm(m.cfg.Now(), m.lastKey)
}

// closeReview ends the review, if one is open.
func (m *Model) closeReview() {
	if m.review == nil {
		return
	}
	m.review = nil
	m.feedback.Reset()
	m.feedback.Blur()
	m.input.Focus()
	m.follow = true
}

// rearm puts the question's keys to sleep: it is shown anew at now, after
// the typing that ended at last.
func (r *review) rearm(now, last time.Time) {
	r.cursor = noCursor
	r.gate = reviewgate.Open(now, last)
	r.drawn = false
}

// drew records that the UI drew the question at now: keys typed before
// that were typed without seeing it, so the quiet wait starts again.
func (r *review) drew(now time.Time) {
	if !r.drawn {
		r.drawn = true
		r.gate.Sleep(now)
	}
}

// reviewKey handles a key that came at now while a review is open. Menu
// keys count only once the keyboard was quiet with the question drawn
// (see [reviewgate]); a key that is none of the menu's puts them back to
// sleep, and Enter answers only after the user moved to an entry.
func (m *Model) reviewKey(msg tea.KeyPressMsg, now time.Time) tea.Cmd {
	r := m.review
	if r.feedback {
		switch {
		case key.Matches(msg, m.keys.Cancel):
			r.feedback = false
			m.feedback.Blur()
			return nil
		case key.Matches(msg, m.keys.Send):
			text := strings.TrimSpace(m.feedback.Value())
			if text == "" && r.chosen.NeedsText() {
				m.notice = m.cat.Review.CommentsNeeded
				return nil
			}
			return m.answer(r.chosen, text)
		}
		var cmd tea.Cmd
		m.feedback, cmd = m.feedback.Update(msg)
		return cmd
	}
	if !r.drawn || !r.gate.Admit(now) {
		m.notice = m.cat.Review.KeysIgnored // typed before it could be read
		return nil
	}
	m.notice, r.problem = "", ""
	k := strings.ToLower(msg.String())
	menu := r.question.Menu
	switch {
	case r.plan() && r.diff != "" && k == present.DiffKey:
		r.diffToggled = !r.diffToggled
		return nil
	case key.Matches(msg, m.keys.Up):
		r.cursor = (max(r.cursor, 0) + len(menu) - 1) % len(menu)
		return nil
	case key.Matches(msg, m.keys.Down):
		r.cursor = (r.cursor + 1) % len(menu)
		return nil
	case key.Matches(msg, m.keys.Choose):
		if r.cursor == noCursor {
			m.notice = m.cat.Review.ChooseFirst
			return nil
		}
		return m.choose(menu[r.cursor])
	}
	for i, ch := range menu {
		if k == ch.Key {
			r.cursor = i
			return m.choose(ch)
		}
	}
	if msg.Text != "" { // the user is typing something else
		r.gate.Sleep(now)
		m.notice = m.cat.Review.KeysIgnored
	}
	return nil
}

// choose acts on a menu entry.
func (m *Model) choose(ch present.Choice) tea.Cmd {
	r := m.review
	switch {
	case ch.Action == present.Dismiss:
		reply := r.reply
		m.closeReview()
		return func() tea.Msg { reply <- AskResult{Err: errDismissed}; return nil }
	case ch.Action == present.Edit:
		// The editor opens a private copy of the plan shown; the plan
		// file (if any) is never touched: the answer carries the edit.
		text, dir := r.text, m.cfg.TempDir
		return func() tea.Msg {
			f, err := os.CreateTemp(dir, "planhost-plan-*.md")
			if err != nil {
				return editReadyMsg{err: err}
			}
			_, err = f.WriteString(text)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return editReadyMsg{path: f.Name(), err: err}
		}
	case ch.TakesText():
		r.feedback, r.chosen = true, ch
		m.feedback.Reset()
		return m.feedback.Focus()
	}
	return m.answer(ch, "")
}

// answer records the answer to the current question, the entry ch with
// the user's text, and after the last question sends all of them. The
// answer echoes the question's digest (the text shown), and an approving
// answer to an edited plan carries the edit. How the review ended shows
// when the log has it (the transcript's outcome line).
func (m *Model) answer(ch present.Choice, text string) tea.Cmd {
	r := m.review
	q := r.req.Questions[r.q]
	a := host.Answer{QuestionID: q.ID, Selected: []string{ch.Option.Label}, Custom: text, DetailDigest: q.DetailDigest}
	if r.edited && ch.Approves() {
		a.Edited = r.text
	}
	r.answers = append(r.answers, a)
	m.feedback.Reset()
	if r.q++; r.q < len(r.req.Questions) {
		m.reviewQuestion()
		return nil
	}
	reply, answers := r.reply, r.answers
	m.closeReview()
	return func() tea.Msg { reply <- AskResult{Answers: answers}; return nil }
}

// startEditor runs the editor on a private copy of the plan.
func (m *Model) startEditor(msg editReadyMsg) tea.Cmd {
	if msg.err != nil {
		m.editorFailed(msg.err)
		return nil
	}
	args := strings.Fields(m.cfg.Editor)
	if len(args) == 0 {
		args = []string{"vi"}
	}
	c := exec.Command(args[0], append(args[1:], msg.path)...)
	path := msg.path
	return tea.ExecProcess(c, func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editedMsg{err: err}
		}
		b, rerr := os.ReadFile(path)
		return editedMsg{text: string(b), err: rerr}
	})
}

// onEdited takes the saved plan: it is what the review now shows, with
// what the user changed, and what an approval approves (the answer
// carries it).
func (m *Model) onEdited(msg editedMsg) {
	r := m.review
	switch {
	case r == nil:
		return
	case msg.err != nil:
		m.editorFailed(msg.err)
		return
	}
	text := strings.TrimRight(m.cfg.Sanitize(msg.text), "\n") + "\n"
	if strings.TrimSpace(text) == strings.TrimSpace(r.text) {
		m.notice = m.cat.Review.EditorUnchanged
		return
	}
	r.diffTitle, r.diff = m.cat.Review.DiffEdited, present.Changes(r.text, text)
	r.text, r.edited, r.top = text, true, 0
	r.rearm(m.cfg.Now(), m.lastKey)
}

// editorFailed shows why the editor did not give a plan inside the review
// (the transcript is hidden behind it) and in the transcript, and logs it.
func (m *Model) editorFailed(err error) {
	text := fmt.Sprintf(m.cat.Review.EditorFailed, err)
	if m.review != nil {
		m.review.problem = text
	}
	m.note(present.Error, text)
	m.cfg.Logger.Warn("planhost: the editor failed", "editor", m.cfg.Editor, "err", err)
}

// diffShown reports whether a review narrower than sideBySideWidth shows
// the diff or its one-line summary: by default the diff when the plan
// changed during the review, or when the diff takes at most a third of the
// page (a longer one would leave a few lines of the plan); v swaps it.
func (r *review) diffShown(pageH int) bool {
	short := strings.Count(r.diff, "\n")+1 <= pageH/3
	return (r.req.Questions[r.q].Previous != "" || short) != r.diffToggled
}

// reviewBody is what the page shows of the plan under review: its title,
// what changed (beside the plan on a wide terminal, else above it or as a
// one-line summary) and the plan. It is rendered when what it shows
// changes, not per key or per frame.
func (m *Model) reviewBody(w int) []string {
	r := m.review
	shown := r.diffShown(m.pageH)
	type bodyKey struct {
		w               int
		dark, shown     bool
		text, diffTitle string
	}
	return r.body.get(bodyKey{w, m.dark, shown, r.text, r.diffTitle}, func() []string {
		title := m.st.title.Render(wrap(m.cfg.Sanitize(m.cat.PlanHeading(r.text)), w))
		w2 := w
		if r.diff != "" && w >= sideBySideWidth {
			w2 = (w - 3) / 2
		}
		type renderKey struct {
			w    int
			dark bool
			text string
		}
		plan := strings.Join(r.markdown.get(renderKey{w2, m.dark, r.text}, func() []string { return lines(m.markdown(r.text, w2)) }), "\n")
		diff := func() string {
			return strings.Join(r.diffView.get(renderKey{w2, m.dark, r.diff}, func() []string { return lines(m.diffView(m.cfg.Sanitize(r.diff), w2)) }), "\n")
		}
		rw := &m.cat.Review
		var body string
		switch {
		case r.diff == "":
			body = title + "\n\n" + plan
		case w >= sideBySideWidth:
			left := m.st.title.Render(wrap(m.cfg.Sanitize(r.diffTitle), w2)) + "\n" + diff()
			right := m.st.title.Render(wrap(rw.FullPlan, w2)) + "\n" + plan
			body = title + "\n\n" + lipgloss.JoinHorizontal(lipgloss.Top, lipgloss.NewStyle().Width(w2).Render(left), " │ ", right)
		case !shown:
			added, removed := diffCounts(r.diff)
			body = title + "\n" + m.st.meta.Render(wrap(fmt.Sprintf(rw.DiffSummary, m.cfg.Sanitize(r.diffTitle), added, removed), w)) + "\n\n" + plan
		default:
			body = title + "\n\n" + m.st.title.Render(wrap(fmt.Sprintf(rw.DiffShown, m.cfg.Sanitize(r.diffTitle)), w)) + "\n" + diff() + "\n\n" +
				m.st.title.Render(wrap(rw.FullPlan, w)) + "\n" + plan
		}
		return lines(body)
	})
}

// diffCounts counts the lines a unified diff adds and removes.
func diffCounts(diff string) (added, removed int) {
	for l := range strings.SplitSeq(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// pack puts pieces side by side on lines at most width wide, each piece
// whole on one line unless it is wider than a line.
func pack(pieces []string, width int) []string {
	var out []string
	line := ""
	for _, p := range pieces {
		if line != "" && ansi.StringWidth(line)+ansi.StringWidth(p) > width {
			out = append(out, line)
			line = ""
		}
		line += p
	}
	out = append(out, line)
	for i, l := range out {
		out[i] = wrap(l, width)
	}
	return out
}

// menuView is the question and its menu, under the page: a consent's
// fields (or its detail), the question, the plan file, the edit and the
// editor's failure, the entries with their keys, and the keys' hint.
// Compact, the entries are only their keys and labels, side by side.
func (m *Model) menuView(r *review, compact bool) string {
	q, w, s := r.question, m.width, m.cfg.Sanitize
	var out []string
	if !r.plan() {
		if q.Fields != nil {
			for _, f := range q.Fields {
				out = append(out, wrap(s(f), w))
			}
		} else if d := strings.TrimSpace(q.Detail); d != "" {
			out = append(out, wrap(s(d), w))
		}
	}
	rw := &m.cat.Review
	out = append(out, m.st.title.Render(wrap(s(q.Text), w)))
	if r.plan() && m.cfg.PlanFile != "" {
		out = append(out, m.st.meta.Render(wrap(fmt.Sprintf(rw.PlanFile, s(m.cfg.PlanFile)), w)))
	}
	if r.edited {
		out = append(out, m.st.meta.Render(wrap(rw.EditedNote, w)))
	}
	if r.problem != "" {
		out = append(out, m.st.err.Render(wrap(r.problem, w)))
	}
	if compact {
		entries := make([]string, len(q.Menu))
		for i, ch := range q.Menu {
			entries[i] = fmt.Sprintf("  [%s] %s", ch.Key, s(ch.Label))
			if i == r.cursor {
				entries[i] = m.st.selected.Render(fmt.Sprintf("❯ [%s] %s", ch.Key, s(ch.Label)))
			}
		}
		out = append(out, pack(entries, w)...)
	}
	for i, ch := range q.Menu {
		if compact {
			break
		}
		line := fmt.Sprintf("[%s] %s", ch.Key, s(ch.Label))
		if ch.Description != "" {
			line += " — " + s(ch.Description)
		}
		if i == r.cursor {
			out = append(out, m.st.selected.Render(hang("❯ "+line, w, 6)))
		} else {
			out = append(out, hang("  "+line, w, 6))
		}
	}
	hint := rw.QuestionHint
	switch {
	case r.plan() && r.diff != "" && w < sideBySideWidth:
		hint = rw.HintDiff
	case r.plan():
		hint = rw.Hint
	}
	return strings.Join(append(out, m.st.meta.Render(wrap(hint, w))), "\n")
}
