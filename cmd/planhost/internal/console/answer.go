package console

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/reviewgate"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
)

// editEnd is the line that ends an edited plan typed in the console.
const editEnd = "."

// asking is the question request being answered line by line.
type asking struct {
	a        *pendingAsk
	q        int // the question being answered
	question present.Question
	answers  []host.Answer
	// chosen is the menu entry waiting for its text (feedback, comments,
	// a reason), when text is set.
	chosen present.Choice
	text   bool
	// plan is the plan under review: the question's, or the user's edit
	// of it (then edited is set, and an approving answer carries it).
	plan   string
	edited bool
	// editing is set while the lines of an edit are typed; lines holds
	// them until the end line.
	editing bool
	lines   []string
	// gate refuses lines typed before the question (or the text prompt)
	// was shown, or too soon after it or after the line before.
	gate reviewgate.Gate
}

// prompt is the prompt while the question waits: the menu's keys, the
// text asked for, or the edit.
func (st *asking) prompt(cat *present.Catalog) string {
	w := &cat.Console
	switch {
	case st.editing:
		return w.PromptEdit
	case st.text && st.chosen.NeedsText():
		return w.PromptComments
	case st.text:
		return w.PromptFeedback
	case st.question.Kind == host.AskClarify:
		q := st.a.req.Questions[st.q]
		keys := "1-" + strconv.Itoa(len(q.Options))
		if q.MultiSelect {
			return fmt.Sprintf(w.PromptAskMulti, keys)
		}
		return fmt.Sprintf(w.PromptAsk, keys)
	case st.question.Kind == host.AskReview:
		return fmt.Sprintf(w.PromptReview, keys(st.question.Menu))
	}
	return fmt.Sprintf(w.PromptAnswer, keys(st.question.Menu))
}

// keys lists a menu's keys.
func keys(menu []present.Choice) string {
	ks := make([]string, len(menu))
	for i, c := range menu {
		ks[i] = c.Key
	}
	return strings.Join(ks, "/")
}

// answer takes one line, typed at at, for the question being asked and
// reports whether the request is settled. An empty line never approves.
func (c *console) answer(st *asking, line string, at time.Time) (done bool) {
	if st.question.Kind == host.AskClarify {
		return c.answerClarifying(st, line, at)
	}
	w := &c.cat.Console
	if st.editing {
		if line == editEnd {
			c.finishEdit(st, at)
		} else {
			st.lines = append(st.lines, line)
		}
		return false
	}
	if st.text {
		text := strings.TrimSpace(line)
		if text == "" && st.chosen.NeedsText() {
			c.out.Line("  " + c.cat.Review.CommentsNeeded)
			st.gate.Sleep(at)
			return false
		}
		st.text = false
		return c.choose(st, st.chosen, text)
	}
	key := strings.ToLower(strings.TrimSpace(line))
	for _, ch := range st.question.Menu {
		if key != ch.Key && key != strings.ToLower(ch.Label) {
			continue
		}
		switch {
		case ch.Action == present.Dismiss:
			st.a.reply <- askReply{err: fmt.Errorf("%s: %w", c.cat.Plans.Dismissed, host.ErrDismissed)}
			return true
		case ch.Action == present.Edit:
			st.editing, st.lines = true, nil
			c.out.Line("  " + w.EditHow)
			return false
		case ch.TakesText():
			st.text, st.chosen = true, ch
			st.gate = reviewgate.Open(time.Now(), at)
			return false
		}
		return c.choose(st, ch, "")
	}
	c.out.Line("  " + fmt.Sprintf(w.BadAnswer, strings.ReplaceAll(keys(st.question.Menu), "/", ", ")))
	st.gate.Sleep(at)
	return false
}

// finishEdit takes the typed edit: a changed plan becomes the plan under
// review (what changed is shown, then the plan), an empty or unchanged one
// leaves it as it was. The menu is shown again, asleep until the keyboard
// is quiet.
func (c *console) finishEdit(st *asking, at time.Time) {
	text := strings.TrimRight(strings.Join(st.lines, "\n"), "\n") + "\n"
	st.editing, st.lines = false, nil
	if strings.TrimSpace(text) == "" || strings.TrimSpace(text) == strings.TrimSpace(st.plan) {
		c.out.Line("  " + c.cat.Console.EditUnchanged)
	} else {
		c.out.Item(present.Item{Kind: present.Diff, Title: c.cat.Review.DiffEdited, Text: present.Changes(st.plan, text)})
		st.plan, st.edited = text, true
		c.out.Item(present.Item{Kind: present.Plan, Title: st.question.PlanTitle, Text: text})
		c.out.Line("  " + c.cat.Review.EditedNote)
	}
	c.out.Menu(st.question)
	st.gate = reviewgate.Open(time.Now(), at)
}

// choose records the answer to the current question: the menu entry ch
// with the user's text. It echoes the question's digest (the text shown),
// and an approving answer to an edited plan carries the edit.
func (c *console) choose(st *asking, ch present.Choice, text string) bool {
	a := host.Answer{QuestionID: st.a.req.Questions[st.q].ID, Selected: []string{ch.Option.Label}, Custom: text,
		DetailDigest: st.a.req.Questions[st.q].DetailDigest}
	if st.edited && ch.Approves() {
		a.Edited = st.plan
	}
	st.answers = append(st.answers, a)
	return c.nextQuestion(st)
}

// nextQuestion moves to the next question, or sends the answers after the
// last one, and reports whether the request is settled.
func (c *console) nextQuestion(st *asking) bool {
	st.q++
	if st.q < len(st.a.req.Questions) {
		st.edited, st.text = false, false
		c.showQuestion(st)
		return false
	}
	st.a.reply <- askReply{answers: st.answers}
	return true
}

// showClarifying shows a question from the model with its options
// numbered from 1, framed as the model's question.
func (c *console) showClarifying(st *asking) {
	w := &c.cat.Console
	q := st.a.req.Questions[st.q]
	if st.q == 0 {
		c.out.Line(c.cat.Form.From)
	}
	c.out.Line(fmt.Sprintf(w.MenuHead, fmt.Sprintf(c.cat.Form.Head, st.q+1, len(st.a.req.Questions), st.question.Title)))
	c.out.Line(fmt.Sprintf(w.MenuText, q.Question))
	for _, ch := range st.question.Menu {
		c.out.Line(strings.TrimRight(fmt.Sprintf(w.MenuOption, ch.Key, ch.Label, ch.Description), " —"))
	}
	if q.MultiSelect {
		c.out.Line(w.AskMulti)
	}
	c.out.Line(w.AskOther)
	c.out.Line(w.MenuEnd)
	st.gate = reviewgate.Open(time.Now(), c.lastLine)
}

// answerClarifying takes one line for the current question from the
// model: option numbers ("2", or "1,3" when several may apply), an empty
// line to skip, anything else as the user's own answer. It reports whether
// the request is settled.
func (c *console) answerClarifying(st *asking, line string, at time.Time) (done bool) {
	w := &c.cat.Console
	q := st.a.req.Questions[st.q]
	text := strings.TrimSpace(line)
	a := host.Answer{QuestionID: q.ID}
	picks, numbers, bad := parsePicks(text, len(q.Options))
	switch {
	case text == "":
	case numbers && bad != "":
		c.out.Line("  " + fmt.Sprintf(w.AskRange, bad, len(q.Options)))
		st.gate.Sleep(at)
		return false
	case numbers && len(picks) > 1 && !q.MultiSelect:
		c.out.Line("  " + w.AskOne)
		st.gate.Sleep(at)
		return false
	case numbers:
		for _, i := range picks {
			a.Selected = append(a.Selected, q.Options[i].Label)
		}
	default:
		a.Custom = text
	}
	st.answers = append(st.answers, a)
	return c.nextQuestion(st)
}

// parsePicks reads "2" or "1, 3" as option indexes (0-based, each once, in
// the order typed). numbers reports whether text is such a list at all;
// bad is the first number that is no option of n.
func parsePicks(text string, n int) (picks []int, numbers bool, bad string) {
	if text == "" {
		return nil, false, ""
	}
	for part := range strings.SplitSeq(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" || strings.Trim(part, "0123456789") != "" {
			return nil, false, ""
		}
		i, err := strconv.Atoi(part)
		switch {
		case bad != "":
		case err != nil || i < 1 || i > n:
			bad = part
		default:
			if !slices.Contains(picks, i-1) {
				picks = append(picks, i-1)
			}
		}
	}
	return picks, true, bad
}
