package plansteps

import (
	"fmt"

	"github.com/dshgo/planmode/internal/render"
)

// Stylesheet styles [RenderHTML]'s list: the classes pm-pending,
// pm-in-progress and pm-completed.
const Stylesheet = render.Stylesheet

// HTML classes of [RenderHTML]: the list's and one per status.
const (
	ClassList       = "pm-steps"
	ClassPending    = render.ClassPending
	ClassInProgress = render.ClassInProgress
	ClassCompleted  = render.ClassCompleted
)

// rows turns the execution's steps into render rows; the current step is
// in progress.
func rows(x *Execution) []render.Row {
	cur := 0
	if !x.Done {
		cur = x.Current()
	}
	out := make([]render.Row, len(x.Steps))
	for i, st := range x.Steps {
		row := render.Row{Text: fmt.Sprintf("%d. %s", st.ID, st.Description)}
		switch {
		case st.Completed:
			row.Status = render.Completed
			if st.VerificationResult != "" {
				row.Note = fmt.Sprintf(noteVerified, st.VerificationResult)
			}
		case st.ID == cur:
			row.Status = render.InProgress
			if st.Verification != "" {
				row.Note = fmt.Sprintf(noteVerify, st.Verification)
			}
		}
		out[i] = row
	}
	return out
}

// footer says what comes next, or how the execution ended.
func footer(x *Execution) string {
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

// title heads the box and the list.
func title(x *Execution) string {
	if x.Title == "" {
		return defaultTitle
	}
	return x.Title
}

// RenderANSI draws the execution's steps as a box for a terminal width
// columns wide: ✓ struck through for completed steps, ▶ bold for the current
// step, ○ for the others, and the next step in the footer. "" for nil.
// Model text is sanitized.
func RenderANSI(x *Execution, width int) string {
	if x == nil {
		return ""
	}
	return render.Box(title(x), rows(x), footer(x), width)
}

// RenderHTML renders the execution's steps as an HTML fragment, an ordered
// list with one CSS class per status (see [Stylesheet]); all text is
// escaped. "" for nil.
func RenderHTML(x *Execution) string {
	if x == nil {
		return ""
	}
	return render.HTML(title(x)+" — "+footer(x), ClassList, true, rows(x))
}
