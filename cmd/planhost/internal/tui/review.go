package tui

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dshgo/planmode/cmd/planhost/internal/reviewgate"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/plandiff"
	"github.com/dshgo/planmode/internal/planmd"
)

// optionKind is what choosing a review option does.
type optionKind int

const (
	optAnswer   optionKind = iota // select the option
	optFeedback                   // select it with feedback (keep planning)
	optComments                   // select it with comments (approve)
	optEdit                       // open the editor
	optDismiss                    // dismiss the review
)

// Keys of the plan review's options; each has its own, so that the
// companions' extra answers do not push the menu onto numbers.
const (
	keyApprove  = "a"
	keyKeep     = "k"
	keyComments = "w"
	keyClear    = "c"
	keyAbandon  = "x"
	keyEdit     = "e"
	keyDismiss  = "d"
	keySave     = "s"
	// keyApproveWith approves and executes with the named model.
	keyApproveWith = "m"
	// keyDiff shows or hides what changed since the previous plan.
	keyDiff = "v"
)

// option is one line of the review menu.
type option struct {
	key, label, desc string
	// value is the protocol's option label.
	value string
	kind  optionKind
	// outcome is what the transcript says after the answer; "" for the
	// approval (approved, or approved as edited).
	outcome string
	// approves marks an answer that approves the plan.
	approves bool
}

// review is the question request being answered.
type review struct {
	id      int
	req     host.AskRequest
	reply   chan<- AskResult
	plan    bool
	q       int
	answers []host.Answer
	options []option
	// cursor is the highlighted option; noCursor until the user moves to
	// one, so that Enter alone answers nothing.
	cursor int
	// feedback is true while the feedback editor is open; comments when
	// it takes the comments of Approve with comments.
	feedback, comments bool
	selected           string
	// planFile is the plan file's path (plan-file enabled), "" otherwise.
	planFile string
	// text is the plan under review (edited when edited is set); original
	// is the model's; previous is the plan of the review before, or the
	// text the host showed before it changed during this review (for the
	// diff).
	text, original, previous string
	edited                   bool
	// changed is set when the host asks again because the plan changed
	// while the user reviewed it.
	changed bool
	// gate keeps keys typed before the question (or the edited plan) was
	// drawn, or in a burst of typing, from answering it; drawn is set once
	// the UI drew it.
	gate   reviewgate.Gate
	drawn  bool
	record int
	// problem is shown in the menu until the next key: the editor failed.
	problem string
	// diffToggled is set when v swapped what the review shows of the
	// changes since the previous plan: the diff or its one-line summary
	// (see diffShown).
	diffToggled bool
}

// noCursor is the cursor of a menu with no option highlighted.
const noCursor = -1

// openReview shows an ask. A plan review gets the plan with what changed
// since the previous plan, and the menu Approve / Keep planning / Edit /
// Dismiss.
func (m *Model) openReview(msg AskMsg) {
	if m.review != nil { // a new ask replaces one the agent withdrew
		m.closeReview(m.cat.OutcomeCancelled)
	}
	r := &review{id: msg.ID, req: msg.Request, reply: msg.Reply, plan: isPlanReview(msg.Request), record: -1}
	if len(r.req.Questions) == 0 {
		r.reply <- AskResult{}
		return
	}
	if r.plan {
		q := r.req.Questions[0]
		r.original = m.cfg.Sanitize(q.Detail)
		r.text = r.original
		switch n := len(m.plans); {
		case q.Previous != "":
			// Asked again: the answer to the text before was not taken.
			r.previous, r.changed = m.cfg.Sanitize(q.Previous), true
			if n > 0 {
				m.plans[n-1].outcome = m.cat.OutcomeChanged
			}
			m.add(KindMeta, m.cat.ReviewChangedNote)
		case q.Reopened != "":
			// The plan revises one the user reopened.
			r.previous = m.cfg.Sanitize(q.Reopened)
		case n > 0 && (m.plans[n-1].outcome == m.cat.OutcomeKeepPlanning || m.plans[n-1].outcome == m.cat.OutcomeEdited):
			r.previous = m.plans[n-1].text
		}
		m.plans = append(m.plans, planRecord{title: planmd.Title(r.text), text: r.text, outcome: m.cat.OutcomeOpen})
		r.record = len(m.plans) - 1
		if m.cfg.PlanFile != nil {
			r.planFile = m.cfg.Sanitize(m.cfg.PlanFile.Path())
		}
	}
	m.review = r
	m.setOptions()
	m.input.Blur()
	m.vp.GotoTop()
}

// setOptions builds the menu of the current question, with no option
// highlighted and the keys asleep until the keyboard is quiet.
func (m *Model) setOptions() {
	r := m.review
	q := r.req.Questions[r.q]
	r.options, r.cursor = nil, noCursor
	r.rearm(m.cfg.Now(), m.lastKey)
	if r.plan {
		for _, o := range q.Options {
			r.options = append(r.options, m.planOption(o))
		}
		r.options = append(r.options, option{key: keyEdit, label: m.cat.OptEdit, desc: m.cat.OptEditDesc, kind: optEdit})
	} else {
		words, _ := m.cat.question(r.req)
		for i, o := range q.Options {
			opt := option{key: fmt.Sprint(i + 1), label: m.cfg.Sanitize(o.Label), desc: m.cfg.Sanitize(o.Description), value: o.Label, kind: optAnswer}
			if w, ok := words.Options[o.Role]; ok && o.Role != "" && o.Role != host.RoleAnswer {
				opt.label, opt.desc = w.Label, w.Description
			}
			r.options = append(r.options, opt)
		}
	}
	r.options = append(r.options, option{key: keyDismiss, label: m.cat.OptDismiss, desc: m.cat.OptDismissDesc, kind: optDismiss})
	// Keys must be distinct, and a plan review's v shows the diff; fall
	// back to numbers.
	seen := map[string]bool{}
	if r.plan {
		seen[keyDiff] = true
	}
	for _, o := range r.options {
		if seen[o.key] {
			for i := range r.options[:len(r.options)-1] {
				r.options[i].key = fmt.Sprint(i + 1)
			}
			break
		}
		seen[o.key] = true
	}
}

// planOption is the menu line of a plan review option, decided from its
// role: the roles this UI knows get their words, keys and behaviour; an
// option of another role shows the asker's label and asks for text like
// Keep planning.
func (m *Model) planOption(o host.Option) option {
	label, desc := m.cat.optionLabel(o.Role)
	opt := option{label: label, desc: desc, value: o.Label, kind: optFeedback, approves: o.Role.Approves()}
	switch o.Role {
	case host.RoleApprove:
		opt.key, opt.kind = keyApprove, optAnswer
	case host.RoleKeepPlanning:
		opt.key, opt.outcome = keyKeep, m.cat.OutcomeKeepPlanning
	case host.RoleApproveWithComments:
		opt.key, opt.kind, opt.outcome = keyComments, optComments, m.cat.OutcomeApprovedComments
	case host.RoleApproveAndClear:
		opt.key, opt.kind, opt.outcome = keyClear, optAnswer, m.cat.OutcomeApprovedCleared
	case host.RoleAbandon:
		opt.key, opt.kind, opt.outcome = keyAbandon, optAnswer, m.cat.OutcomeAbandoned
	case host.RoleSave:
		opt.key, opt.kind, opt.outcome = keySave, optAnswer, m.cat.OutcomeSaved
	case host.RoleApproveWithModel:
		opt.label, opt.desc = fmt.Sprintf(m.cat.OptApproveWith, m.cfg.Sanitize(o.Model)), m.cat.OptApproveWithDesc
		opt.key, opt.kind = keyApproveWith, optAnswer
	default:
		opt.label, opt.desc = m.cfg.Sanitize(o.Label), m.cfg.Sanitize(o.Description)
		opt.key, opt.outcome = strings.ToLower(firstRune(o.Label)), m.cat.OutcomeKeepPlanning
		if !o.Role.TakesText() {
			opt.kind = optAnswer
		}
	}
	return opt
}

func firstRune(s string) string {
	for _, r := range s {
		return string(r)
	}
	return ""
}

// closeReview ends the review and records the outcome.
func (m *Model) closeReview(outcome string) {
	if r := m.review; r != nil && r.record >= 0 {
		m.plans[r.record].outcome = outcome
		m.plans[r.record].text = r.text
	}
	m.review = nil
	m.feedback.Reset()
	m.feedback.Blur()
	m.input.Focus()
	m.follow = true
	m.render.invalidateFrom(len(m.entries))
}

// rearm puts the question's keys to sleep: it is shown anew at now, after
// the typing that ended at last.
func (r *review) rearm(now, last time.Time) {
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
// sleep, and Enter answers only after the user moved to an option.
func (m *Model) reviewKey(msg tea.KeyPressMsg, now time.Time) tea.Cmd {
	r := m.review
	if r.feedback {
		switch {
		case key.Matches(msg, m.keys.Cancel):
			r.feedback, r.comments = false, false
			m.feedback.Blur()
			return nil
		case key.Matches(msg, m.keys.Send):
			text := strings.TrimSpace(m.feedback.Value())
			outcome := m.cat.OutcomeKeepPlanning
			if r.comments {
				if text == "" {
					m.note = m.cat.CommentsNeeded
					return nil
				}
				outcome = m.cat.OutcomeApprovedComments
			}
			m.feedback.Reset()
			r.feedback, r.comments = false, false
			return m.answer(host.Answer{QuestionID: r.req.Questions[r.q].ID, Selected: []string{r.selected}, Custom: text}, outcome)
		}
		var cmd tea.Cmd
		m.feedback, cmd = m.feedback.Update(msg)
		return cmd
	}
	if !r.drawn || !r.gate.Admit(now) {
		m.note = m.cat.ReviewKeysIgnored // typed before it could be read
		return nil
	}
	m.note = ""
	r.problem = ""
	if r.plan && strings.ToLower(msg.String()) == keyDiff && planDiff(r.previous, r.text) != "" {
		r.diffToggled = !r.diffToggled
		return nil
	}
	switch {
	case key.Matches(msg, m.keys.Up):
		if r.cursor == noCursor {
			r.cursor = 0
		}
		r.cursor = (r.cursor + len(r.options) - 1) % len(r.options)
		return nil
	case key.Matches(msg, m.keys.Down):
		r.cursor = (r.cursor + 1) % len(r.options)
		return nil
	case key.Matches(msg, m.keys.Choose):
		if r.cursor == noCursor {
			m.note = m.cat.ReviewChooseFirst
			return nil
		}
		return m.choose(r.options[r.cursor])
	}
	k := strings.ToLower(msg.String())
	for i, o := range r.options {
		if k == o.key {
			r.cursor = i
			return m.choose(o)
		}
	}
	if msg.Text != "" { // the user is typing something else
		r.gate.Sleep(now)
		m.note = m.cat.ReviewKeysIgnored
	}
	return nil
}

// choose acts on a menu option.
func (m *Model) choose(o option) tea.Cmd {
	r := m.review
	qid := r.req.Questions[r.q].ID
	switch o.kind {
	case optDismiss:
		reply := r.reply
		m.closeReview(m.cat.OutcomeDismissed)
		m.add(KindMeta, fmt.Sprintf(m.cat.ReviewAnswered, m.cat.OutcomeDismissed))
		return func() tea.Msg { reply <- AskResult{Err: errDismissed}; return nil }
	case optEdit:
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
	}
	switch o.kind {
	case optFeedback, optComments:
		r.feedback, r.comments, r.selected = true, o.kind == optComments, o.value
		m.feedback.Reset()
		return m.feedback.Focus()
	}
	outcome := o.outcome
	switch {
	case !r.plan:
		outcome = o.label
	case outcome != "":
	case r.edited: // the answer carries the edit; the host reports it
		outcome = m.cat.OutcomeEdited
	default:
		outcome = m.cat.OutcomeApproved
	}
	return m.answer(host.Answer{QuestionID: qid, Selected: []string{o.value}}, outcome)
}

// answer records the answer to the current question and, after the last
// one, sends all of them.
//
// The answer echoes the question's digest (the text shown), and an
// approving answer to an edited plan carries the edit.
func (m *Model) answer(a host.Answer, outcome string) tea.Cmd {
	r := m.review
	a.DetailDigest = r.req.Questions[r.q].DetailDigest
	if r.plan && r.edited && m.approves(a) {
		a.Edited = r.text
	}
	r.answers = append(r.answers, a)
	r.q++
	if r.q < len(r.req.Questions) {
		m.setOptions()
		return nil
	}
	reply, answers := r.reply, r.answers
	if r.plan {
		m.add(KindMeta, fmt.Sprintf(m.cat.ReviewAnswered, outcome))
		switch {
		case strings.TrimSpace(a.Custom) != "":
			// The user's words: the result that carries them to the
			// model is not shown (it is the model's text).
			m.add(KindUser, m.cfg.Sanitize(strings.TrimSpace(a.Custom)))
		case a.Edited != "":
			// The approved plan is the edit, not the card shown before.
			m.add(KindMarkdown, r.text)
		}
	}
	m.closeReview(outcome)
	return func() tea.Msg { reply <- AskResult{Answers: answers}; return nil }
}

// approves reports whether a selects an option of the menu that approves.
func (m *Model) approves(a host.Answer) bool {
	for _, o := range m.review.options {
		if o.approves && len(a.Selected) == 1 && a.Selected[0] == o.value {
			return true
		}
	}
	return false
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

// onEdited takes the saved plan: it is what the review now shows and what
// an approval approves (the answer carries it).
func (m *Model) onEdited(msg editedMsg) tea.Cmd {
	r := m.review
	switch {
	case r == nil:
		return nil
	case msg.err != nil:
		m.editorFailed(msg.err)
		return nil
	}
	text := strings.TrimRight(m.cfg.Sanitize(msg.text), "\n") + "\n"
	if strings.TrimSpace(text) == strings.TrimSpace(r.text) {
		m.note = m.cat.EditorUnchanged
		return nil
	}
	m.showEdited(text)
	return nil
}

// editorFailed shows why the editor did not give a plan inside the review
// (the transcript is hidden behind it) and in the transcript, and logs it.
func (m *Model) editorFailed(err error) {
	text := fmt.Sprintf(m.cat.EditorFailed, err)
	if m.review != nil {
		m.review.problem = text
	}
	m.add(KindError, text)
	m.cfg.Logger.Warn("planhost: the editor failed", "editor", m.cfg.Editor, "err", err)
}

// showEdited makes text the plan under review.
func (m *Model) showEdited(text string) {
	r := m.review
	r.previous, r.text, r.edited = r.text, text, true
	r.cursor = noCursor
	r.rearm(m.cfg.Now(), m.lastKey)
	if r.record >= 0 {
		m.plans[r.record].text = text
	}
	m.vp.GotoTop()
}

// diffShown reports whether a review narrower than sideBySideWidth shows
// the diff or its one-line summary: by default the diff when the plan
// changed during the review, or when the diff takes at most a third of the
// viewport (a longer one would leave a few lines of the plan); v swaps it.
func (m *Model) diffShown(diff string) bool {
	r := m.review
	short := strings.Count(diff, "\n")+1 <= m.vp.Height()/3
	return (r.changed || short) != r.diffToggled
}

// planDiff is a unified diff of the plan against the previous one, without
// file headers; "" when they differ in white space at their ends only.
func planDiff(previous, current string) string {
	if strings.TrimSpace(previous) == strings.TrimSpace(current) {
		return ""
	}
	return plandiff.Unified(previous, current)
}
