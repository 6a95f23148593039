package present

import (
	"fmt"
	"strings"

	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/todo"
)

// StepsBox is the box of an approved plan's steps: each step with its
// status (the step to work on in progress) and its verification, and a
// footer that says what comes next or how the plan ended.
func (c *Catalog) StepsBox(x *plansteps.Execution) Item {
	w := &c.Boxes
	title := x.Title
	if title == "" {
		title = w.StepsTitle
	}
	cur := 0
	if !x.Done {
		cur = x.Current()
	}
	rows := make([]Row, len(x.Steps))
	for i, st := range x.Steps {
		row := Row{Text: fmt.Sprintf("%d. %s", st.ID, st.Description)}
		switch {
		case st.Completed:
			row.Status = Completed
			if st.VerificationResult != "" {
				row.Note = fmt.Sprintf(w.Verified, st.VerificationResult)
			}
		case st.ID == cur:
			row.Status = InProgress
			if st.Verification != "" {
				row.Note = fmt.Sprintf(w.Verify, st.Verification)
			}
		}
		rows[i] = row
	}
	return Item{Kind: Box, Title: title, Rows: rows, Footer: c.stepsFooter(x)}
}

// stepsFooter says what comes next, or how the execution ended.
func (c *Catalog) stepsFooter(x *plansteps.Execution) string {
	w := &c.Boxes
	switch {
	case x.Done:
		return fmt.Sprintf(w.Done, x.Completed(), c.count(len(x.Steps), w.Step, w.Steps), c.count(len(x.Deviations), w.Deviation, w.Deviations))
	case len(x.Steps) == 0:
		return w.NoSteps
	case x.Completed() == len(x.Steps):
		return fmt.Sprintf(w.AllDone, c.count(len(x.Steps), w.Step, w.Steps))
	}
	if cur := x.Current(); cur != 0 {
		return fmt.Sprintf(w.Next, x.Completed(), len(x.Steps), cur)
	}
	return fmt.Sprintf(w.Progress, x.Completed(), len(x.Steps))
}

// count is n with its noun: one for 1, many otherwise.
func (c *Catalog) count(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf(c.Boxes.Count, n, one)
	}
	return fmt.Sprintf(c.Boxes.Count, n, many)
}

// TodoBox is the box of a todo list: each item with its status, a
// high-priority item marked, and a footer that counts the completed ones.
func (c *Catalog) TodoBox(items []todo.Item) Item {
	w := &c.Boxes
	rows := make([]Row, len(items))
	done := 0
	for i, it := range items {
		rows[i] = Row{Status: Pending, Text: it.Content}
		switch it.Status {
		case todo.StatusInProgress:
			rows[i].Status = InProgress
		case todo.StatusCompleted:
			rows[i].Status = Completed
			done++
		}
		if it.Priority == todo.PriorityHigh {
			rows[i].Text = "[" + w.High + "] " + it.Content
		}
	}
	footer := fmt.Sprintf(w.TodoDone, done, len(items))
	if len(items) == 0 {
		footer = w.TodoEmpty
	}
	return Item{Kind: Box, Title: w.Todo, Rows: rows, Footer: footer}
}

// AnswersBox is the box of one call's questions from the model: how the
// call ended, and each question with its answer as the model reads it:
// the user's own words when there are some (they win over the options
// chosen), else the options chosen, or skipped.
func (c *Catalog) AnswersBox(a planask.Ask) Item {
	w := &c.Boxes
	byID := map[string]planask.Answer{}
	if a.Answer != nil {
		for _, ans := range a.Answer.Answers {
			byID[ans.ID] = ans
		}
	}
	var rows []Row
	for _, q := range a.Questions.Questions {
		ans, ok := byID[q.ID]
		if !ok {
			rows = append(rows, Row{Status: Unmarked, Text: fmt.Sprintf(w.Unanswered, OneLine(q.Header), OneLine(q.Question))})
			continue
		}
		rows = append(rows, Row{Status: Unmarked, Text: fmt.Sprintf(w.Answer, OneLine(q.Header), OneLine(q.Question), OneLine(c.AnswerText(ans.Selected, ans.Other)))})
	}
	headers := make([]string, len(a.Questions.Questions))
	for i, q := range a.Questions.Questions {
		headers[i] = OneLine(q.Header)
	}
	return Item{Kind: Box, Title: fmt.Sprintf(w.Asked, strings.Join(headers, w.Join), c.askOutcome(a)), Rows: rows}
}

// AnswerText is an answer to a question from the model as the model reads
// it: the user's own words when there are some, which win over the
// options ticked (those show struck out, as replaced), else the options
// chosen, or skipped.
func (c *Catalog) AnswerText(selected []string, other string) string {
	w := &c.Boxes
	switch {
	case other != "" && len(selected) > 0:
		return fmt.Sprintf(w.OwnWordsOver, other, strings.Join(selected, ", "))
	case other != "":
		return fmt.Sprintf(w.OwnWords, other)
	case len(selected) > 0:
		return strings.Join(selected, ", ")
	}
	return w.Skipped
}

// askOutcome says how an ask_user call ended.
func (c *Catalog) askOutcome(a planask.Ask) string {
	w := &c.Boxes
	switch {
	case a.Answer == nil:
		return w.Open
	case a.Answer.Outcome == planask.OutcomePolicy:
		return fmt.Sprintf(w.Policy, a.Answer.Policy)
	case a.Answer.Outcome == planask.OutcomeFailed:
		// Why is the model's business (its tool result, shown with
		// -verbose): the user saw the questions close.
		return w.Failed
	case a.Answer.Outcome == planask.OutcomeAnswered:
		return w.Answered
	case a.Answer.Outcome == planask.OutcomeDeclined:
		return w.Declined
	}
	return a.Answer.Outcome
}
