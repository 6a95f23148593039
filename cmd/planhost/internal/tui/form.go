package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dshgo/planmode/cmd/planhost/internal/reviewgate"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
)

// form is the model's questions (a clarifying request) being answered: a
// form to fill in, never an approval. Each question shows its options and
// a row for the user's own words; space or a number picks an option
// (toggles it when several may apply), Enter goes to the next question,
// Esc skips it.
//
// It is a small form of its own rather than charm.land/huh's: a huh
// select starts on its first option, so Enter alone would answer with
// it; it takes no number keys and has no way to skip a question or to
// answer in one's own words beside the options.
type form struct {
	id      int
	req     host.AskRequest
	reply   chan<- AskResult
	q       int
	log     host.Log
	answers []host.Answer
	// question is what present shows of the current question.
	question present.Question
	// cursor is the highlighted row: an option, or len(options) for the
	// row of the user's own words; noCursor until the user moves.
	cursor int
	picked []bool
	// gate keeps keys typed before the question was drawn, or in a burst
	// of typing, from answering it; drawn is set once the UI drew it.
	gate  reviewgate.Gate
	drawn bool
}

// formQuestion sets up the current question, with no row highlighted and
// the keys asleep until the keyboard is quiet.
func (m *Model) formQuestion() {
	f := m.form
	f.question = m.cat.Question(f.req, f.q, f.log, false)
	f.cursor = noCursor
	f.picked = make([]bool, len(f.question.Menu))
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

// closeForm ends the form, if one is open.
func (m *Model) closeForm() {
	if m.form == nil {
		return
	}
	m.form = nil
	m.feedback.Reset()
	m.feedback.Blur()
	m.input.Focus()
	m.follow = true
}

// onOther reports whether the cursor is on the row of the user's words.
func (f *form) onOther() bool { return f.cursor == len(f.picked) }

// formKey handles a key that came at now while the form is open.
func (m *Model) formKey(msg tea.KeyPressMsg, now time.Time) tea.Cmd {
	f := m.form
	w := &m.cat.Form
	if !f.drawn || !f.gate.Admit(now) {
		m.notice = w.KeysIgnored
		return nil
	}
	m.notice = ""
	q := f.req.Questions[f.q]
	rows := len(f.picked) + 1
	switch {
	case key.Matches(msg, m.keys.Cancel):
		return m.formAnswer(host.Answer{QuestionID: q.ID})
	case key.Matches(msg, m.keys.Up):
		f.cursor = (max(f.cursor, 0) + rows - 1) % rows
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
				a.Selected = append(a.Selected, f.question.Menu[i].Option.Label)
			}
		}
		if len(a.Selected) == 0 && a.Custom == "" {
			m.notice = w.ChooseFirst
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
	if n, err := strconv.Atoi(msg.Text); err == nil && n >= 1 && n <= len(f.picked) {
		f.cursor = n - 1
		m.formPick(n - 1)
		return nil
	}
	if msg.Text != "" { // typing elsewhere than the text row
		f.gate.Sleep(now)
		m.notice = w.KeysIgnored
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
// last one, sends all of them; the transcript shows them once the log has
// them.
func (m *Model) formAnswer(a host.Answer) tea.Cmd {
	f := m.form
	f.answers = append(f.answers, a)
	if f.q++; f.q < len(f.req.Questions) {
		m.formQuestion()
		return nil
	}
	reply, answers := f.reply, f.answers
	m.closeForm()
	return func() tea.Msg { reply <- AskResult{Answers: answers}; return nil }
}

// formView is the current question, framed as the model's, its options
// and the text row. The model's text is escaped.
func (m *Model) formView() string {
	f, w, s := m.form, &m.cat.Form, m.cfg.Sanitize
	q := f.question
	lines := []string{
		m.st.meta.Render(wrap(w.From, m.width)),
		m.st.meta.Render(wrap(fmt.Sprintf(w.Head, f.q+1, len(f.req.Questions), s(q.Title)), m.width)),
		m.st.title.Render(wrap(s(q.Text), m.width)),
	}
	multi := f.req.Questions[f.q].MultiSelect
	for i, ch := range q.Menu {
		mark := "( )"
		switch {
		case multi && f.picked[i]:
			mark = "[x]"
		case multi:
			mark = "[ ]"
		case f.picked[i]:
			mark = "(•)"
		}
		line := fmt.Sprintf("%s %s %s", mark, ch.Key, s(ch.Label))
		if ch.Description != "" {
			line += " — " + s(ch.Description)
		}
		if i == f.cursor {
			lines = append(lines, m.st.selected.Render(hang("❯ "+line, m.width, 8)))
		} else {
			lines = append(lines, hang("  "+line, m.width, 8))
		}
	}
	switch other := m.feedback.Value(); {
	case f.onOther():
		lines = append(lines, m.st.selected.Render("❯ "+w.Other), m.feedback.View())
	case other != "":
		lines = append(lines, hang("  "+w.Other+" "+s(other), m.width, 4))
	default:
		lines = append(lines, m.st.meta.Render("  "+w.Other+" "+w.OtherEmpty))
	}
	if strings.TrimSpace(m.feedback.Value()) != "" && slices.Contains(f.picked, true) {
		// The model is told the user's words win over the options.
		lines = append(lines, m.st.meta.Render(wrap("  "+w.OtherWins, m.width)))
	}
	hint := w.Hint
	if multi {
		hint = w.HintMulti
	}
	return strings.Join(append(lines, m.st.meta.Render(wrap(hint, m.width))), "\n")
}
