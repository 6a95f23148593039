package render

import (
	"fmt"

	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/todo"
)

// Classes of the companions' HTML lists, next to [ClassList].
const (
	// ClassSteps marks the plan-steps list.
	ClassSteps = "pm-steps"
	// ClassTodo marks the todo list.
	ClassTodo = "pm-todo"
)

// StepsANSI draws an execution's steps as a box for a terminal width
// columns wide: ✓ struck through for completed steps, ▶ bold for the
// current step, ○ for the others, and the next step in the footer. "" for
// nil. Model text is sanitized.
func StepsANSI(x *plansteps.Execution, width int) string {
	if x == nil {
		return ""
	}
	return Box(stepsTitle(x), stepRows(x), stepsFooter(x), width)
}

// StepsHTML renders an execution's steps as an HTML fragment, an ordered
// list with one CSS class per status (see [Stylesheet]); all text is
// escaped. "" for nil.
func StepsHTML(x *plansteps.Execution) string {
	if x == nil {
		return ""
	}
	return HTML(stepsTitle(x)+" — "+stepsFooter(x), ClassSteps, true, stepRows(x))
}

// stepRows turns the execution's steps into rows; the current step is in
// progress.
func stepRows(x *plansteps.Execution) []Row {
	cur := 0
	if !x.Done {
		cur = x.Current()
	}
	out := make([]Row, len(x.Steps))
	for i, st := range x.Steps {
		row := Row{Text: fmt.Sprintf("%d. %s", st.ID, st.Description)}
		switch {
		case st.Completed:
			row.Status = Completed
			if st.VerificationResult != "" {
				row.Note = fmt.Sprintf(noteVerified, st.VerificationResult)
			}
		case st.ID == cur:
			row.Status = InProgress
			if st.Verification != "" {
				row.Note = fmt.Sprintf(noteVerify, st.Verification)
			}
		}
		out[i] = row
	}
	return out
}

// stepsFooter says what comes next, or how the execution ended.
func stepsFooter(x *plansteps.Execution) string {
	switch {
	case x.Done:
		return fmt.Sprintf(footerDone, x.Completed(), count(len(x.Steps), wordStep, wordSteps), count(len(x.Deviations), wordDev, wordDevs))
	case len(x.Steps) == 0:
		return footerNoSteps
	case x.Completed() == len(x.Steps):
		return fmt.Sprintf(footerAllDone, count(len(x.Steps), wordStep, wordSteps))
	}
	if cur := x.Current(); cur != 0 {
		return fmt.Sprintf(footerNext, x.Completed(), len(x.Steps), cur)
	}
	return fmt.Sprintf(footerProgress, x.Completed(), len(x.Steps))
}

// count is n with its noun in English's singular or plural form.
func count(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf(countFmt, n, one)
	}
	return fmt.Sprintf(countFmt, n, many)
}

// stepsTitle heads the box and the list.
func stepsTitle(x *plansteps.Execution) string {
	if x.Title == "" {
		return defaultStepsTitle
	}
	return x.Title
}

// TodoANSI draws a todo list as a box for a terminal width columns wide:
// ✓ and struck through for completed items, ▶ and bold for the item in
// progress, ○ for pending ones; high-priority items are marked. Model text
// is sanitized: no control character reaches the terminal.
func TodoANSI(items []todo.Item, width int) string {
	return Box(todoTitle, todoRows(items), todoFooter(items), width)
}

// TodoHTML renders a todo list as an HTML fragment, a list with one CSS
// class per status (see [Stylesheet]); all text is escaped.
func TodoHTML(items []todo.Item) string {
	return HTML(todoTitle+" — "+todoFooter(items), ClassTodo, false, todoRows(items))
}

// todoRows turns items into rows.
func todoRows(items []todo.Item) []Row {
	out := make([]Row, len(items))
	for i, it := range items {
		out[i] = Row{Status: todoStatus(it.Status), Text: it.Content}
		if it.Priority == todo.PriorityHigh {
			out[i].Text = "[" + string(todo.PriorityHigh) + "] " + it.Content
		}
	}
	return out
}

// todoStatus is the row status of an item's.
func todoStatus(s todo.Status) Status {
	switch s {
	case todo.StatusInProgress:
		return InProgress
	case todo.StatusCompleted:
		return Completed
	}
	return Pending
}

// todoFooter counts the completed items.
func todoFooter(items []todo.Item) string {
	if len(items) == 0 {
		return todoEmpty
	}
	done := 0
	for _, it := range items {
		if it.Status == todo.StatusCompleted {
			done++
		}
	}
	return fmt.Sprintf(todoFooterFormat, done, len(items))
}

// The companions' texts.
const (
	defaultStepsTitle = "Plan"
	noteVerified      = "verified: %s"
	noteVerify        = "verify: %s"
	footerDone        = "Completed: %d of %s done, %s"
	footerNoSteps     = "No tracked steps"
	footerAllDone     = "All %s done · the plan is not completed yet"
	// countFmt is a count and its noun.
	countFmt       = "%d %s"
	wordStep       = "step"
	wordSteps      = "steps"
	wordDev        = "deviation"
	wordDevs       = "deviations"
	footerNext     = "%d of %d done · next: step %d"
	footerProgress = "%d of %d done · waiting on dependencies"

	todoTitle        = "Todo"
	todoFooterFormat = "%d of %d completed"
	todoEmpty        = "The todo list is empty."
)
