package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dshgo/planmode/cmd/planhost/internal/reviewgate"
	"github.com/dshgo/planmode/host"
)

// form is a set of clarifying questions (intent plan-ask) being answered:
// a form to fill in, never an approval. Each question shows its options
// and a row for the user's own words; space or a number picks an option
// (toggles it when several may apply), Enter goes to the next question,
// Esc skips it.
type form struct {
	id      int
	req     host.AskRequest
	reply   chan<- AskResult
	q       int
	answers []host.Answer
	// cursor is the highlighted row: an option, or len(options) for the
	// row of the user's own words; noCursor until the user moves.
	cursor int
	picked []bool
	// gate keeps keys typed before the question was drawn, or in a burst
	// of typing, from answering it; drawn is set once the UI drew it.
	gate  reviewgate.Gate
	drawn bool
}

// AskedQuestion is a clarifying question with its answer, as /plans lists
// it.
type AskedQuestion struct {
	// Header and Question are the question's.
	Header, Question string
	// Selected are the labels chosen; Other is the user's own words.
	Selected []string
	Other    string
}

// listQuestions is /plans' list of the clarifying questions: those a
// resumed session asked before the UI started, then this UI's.
func (m *Model) listQuestions() {
	all := append(append([]AskedQuestion(nil), m.cfg.Questions...), m.asked...)
	if len(all) == 0 {
		return
	}
	t := m.cat.formTexts()
	lines := []string{t.AskedHeader}
	for _, q := range all {
		parts := append([]string(nil), q.Selected...)
		if q.Other != "" {
			parts = append(parts, fmt.Sprintf(t.AskedOwnWords, q.Other))
		}
		answer := strings.Join(parts, ", ")
		if answer == "" {
			answer = t.AskedSkipped
		}
		line := fmt.Sprintf(t.AskedLine, q.Header, q.Question, answer)
		lines = append(lines, m.cfg.Sanitize(strings.Join(strings.Fields(line), " ")))
	}
	m.add(KindMeta, strings.Join(lines, "\n"))
}

// isClarifying reports whether req holds questions from the model.
func isClarifying(req host.AskRequest) bool {
	return req.Kind == host.AskClarify
}

// openAsk shows an ask: clarifying questions as a form, anything else as
// a review. A new ask replaces a form the agent withdrew.
func (m *Model) openAsk(msg AskMsg) {
	if m.form != nil {
		m.closeForm()
	}
	if !isClarifying(msg.Request) || len(msg.Request.Questions) == 0 {
		m.openReview(msg)
		return
	}
	if m.review != nil {
		m.closeReview(m.cat.OutcomeCancelled)
	}
	m.form = &form{id: msg.ID, req: msg.Request, reply: msg.Reply}
	m.formQuestion()
	m.input.Blur()
}

// formQuestion sets up the current question, with no row highlighted and
// the keys asleep until the keyboard is quiet.
func (m *Model) formQuestion() {
	f := m.form
	f.cursor = noCursor
	f.picked = make([]bool, len(f.req.Questions[f.q].Options))
	f.gate = reviewgate.Open(m.cfg.Now(), m.lastKey)
	f.drawn = false
	m.feedback.Reset()
	m.feedback.Blur()
}

// drew records that the UI drew the question at now.
func (f *form) drew(now time.Time) {
	if !f.drawn {
		f.drawn = true
		f.gate.Sleep(now)
	}
}

// closeForm ends the form.
func (m *Model) closeForm() {
	m.form = nil
	m.feedback.Reset()
	m.feedback.Blur()
	m.input.Focus()
	m.follow = true
	m.render.invalidateFrom(len(m.entries))
}

// withdrawForm closes the form with id, which the agent withdrew.
func (m *Model) withdrawForm(id int) bool {
	if m.form == nil || m.form.id != id {
		return false
	}
	m.closeForm()
	m.add(KindMeta, m.cat.formTexts().Cancelled)
	return true
}

// onOther reports whether the cursor is on the row of the user's words.
func (f *form) onOther() bool {
	return f.cursor == len(f.req.Questions[f.q].Options)
}

// formKey handles a key that came at now while the form is open.
func (m *Model) formKey(msg tea.KeyPressMsg, now time.Time) tea.Cmd {
	f := m.form
	t := m.cat.formTexts()
	if !f.drawn || !f.gate.Admit(now) {
		m.note = t.KeysIgnored
		return nil
	}
	m.note = ""
	q := f.req.Questions[f.q]
	rows := len(q.Options) + 1
	switch {
	case key.Matches(msg, m.keys.Cancel):
		return m.formAnswer(host.Answer{QuestionID: q.ID})
	case key.Matches(msg, m.keys.Up):
		if f.cursor == noCursor {
			f.cursor = 0
		}
		f.cursor = (f.cursor + rows - 1) % rows
		return m.formFocus()
	case key.Matches(msg, m.keys.Down):
		f.cursor = (f.cursor + 1) % rows
		return m.formFocus()
	case key.Matches(msg, m.keys.Send):
		a := host.Answer{QuestionID: q.ID, Custom: strings.TrimSpace(m.feedback.Value())}
		if !q.MultiSelect && f.cursor >= 0 && !f.onOther() {
			clear(f.picked)
			f.picked[f.cursor] = true
		}
		for i, p := range f.picked {
			if p {
				a.Selected = append(a.Selected, q.Options[i].Label)
			}
		}
		if len(a.Selected) == 0 && a.Custom == "" {
			m.note = t.ChooseFirst
			return nil
		}
		return m.formAnswer(a)
	}
	if f.onOther() {
		var cmd tea.Cmd
		m.feedback, cmd = m.feedback.Update(msg)
		return cmd
	}
	if msg.String() == "space" && f.cursor >= 0 {
		m.formPick(f.cursor)
		return nil
	}
	if n, err := strconv.Atoi(msg.Text); err == nil && n >= 1 && n <= len(q.Options) {
		f.cursor = n - 1
		m.formPick(n - 1)
		return nil
	}
	if msg.Text != "" { // typing elsewhere than the text row
		f.gate.Sleep(now)
		m.note = t.KeysIgnored
	}
	return nil
}

// formFocus gives the text row the keyboard while the cursor is on it.
func (m *Model) formFocus() tea.Cmd {
	if m.form.onOther() {
		return m.feedback.Focus()
	}
	m.feedback.Blur()
	return nil
}

// formPick picks option i: toggles it when several may apply, else makes
// it the one choice.
func (m *Model) formPick(i int) {
	f := m.form
	if f.req.Questions[f.q].MultiSelect {
		f.picked[i] = !f.picked[i]
		return
	}
	was := f.picked[i]
	clear(f.picked)
	f.picked[i] = !was
}

// formPaste puts pasted text in the text row when the cursor is on it; a
// paste anywhere else is typing, not an answer.
func (m *Model) formPaste(text string) {
	if m.form.onOther() {
		m.feedback.InsertString(text)
		return
	}
	m.form.gate.Sleep(m.lastKey)
}

// formAnswer records the answer to the current question and, after the
// last one, sends all of them.
func (m *Model) formAnswer(a host.Answer) tea.Cmd {
	f := m.form
	f.answers = append(f.answers, a)
	f.q++
	if f.q < len(f.req.Questions) {
		m.formQuestion()
		return nil
	}
	skipped := 0
	for _, a := range f.answers {
		if len(a.Selected) == 0 && a.Custom == "" {
			skipped++
		}
	}
	for i, a := range f.answers {
		q := f.req.Questions[i]
		m.asked = append(m.asked, AskedQuestion{Header: q.Header, Question: q.Question, Selected: a.Selected, Other: a.Custom})
	}
	reply, answers := f.reply, f.answers
	m.add(KindMeta, fmt.Sprintf(m.cat.formTexts().Answered, len(answers)-skipped, skipped))
	m.closeForm()
	return func() tea.Msg { reply <- AskResult{Answers: answers}; return nil }
}

// formView is the current question, its options and the text row. The
// model's text is sanitized.
func (m Model) formView() string {
	f := m.form
	t := m.cat.formTexts()
	q := f.req.Questions[f.q]
	header := q.Header
	if header == "" {
		header = q.ID
	}
	lines := []string{
		m.st.meta.Render(wrap(fmt.Sprintf(t.Head, f.q+1, len(f.req.Questions), m.cfg.Sanitize(header)), m.width)),
		m.st.title.Render(wrap(m.cfg.Sanitize(q.Question), m.width)),
	}
	for i, o := range q.Options {
		mark := "( )"
		switch {
		case q.MultiSelect && f.picked[i]:
			mark = "[x]"
		case q.MultiSelect:
			mark = "[ ]"
		case f.picked[i]:
			mark = "(•)"
		}
		line := fmt.Sprintf("%s %d %s", mark, i+1, m.cfg.Sanitize(o.Label))
		if o.Description != "" {
			line += " — " + m.cfg.Sanitize(o.Description)
		}
		if i == f.cursor {
			lines = append(lines, m.st.selected.Render(hang("❯ "+line, m.width, 8)))
		} else {
			lines = append(lines, hang("  "+line, m.width, 8))
		}
	}
	switch other := m.feedback.Value(); {
	case f.onOther():
		lines = append(lines, m.st.selected.Render("❯ "+t.Other), m.feedback.View())
	case other != "":
		lines = append(lines, hang("  "+t.Other+" "+m.cfg.Sanitize(other), m.width, 4))
	default:
		lines = append(lines, m.st.meta.Render("  "+t.Other+" "+t.OtherEmpty))
	}
	hint := t.Hint
	if q.MultiSelect {
		hint = t.HintMulti
	}
	lines = append(lines, m.st.meta.Render(wrap(hint, m.width)))
	return strings.Join(lines, "\n")
}
