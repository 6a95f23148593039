package todo

import (
	"fmt"

	"github.com/dshgo/planmode/internal/render"
)

// Stylesheet styles [RenderHTML]'s list (and the plan-steps list): the
// classes pm-pending, pm-in-progress and pm-completed.
const Stylesheet = render.Stylesheet

// HTML classes of [RenderHTML]: the list's and one per status.
const (
	ClassList       = "pm-todo"
	ClassPending    = render.ClassPending
	ClassInProgress = render.ClassInProgress
	ClassCompleted  = render.ClassCompleted
)

// rows turns items into render rows.
func rows(items []Item) []render.Row {
	out := make([]render.Row, len(items))
	for i, it := range items {
		out[i] = render.Row{Status: renderStatus(it.Status), Text: it.Content}
		if it.Priority == PriorityHigh {
			out[i].Text = "[" + string(PriorityHigh) + "] " + it.Content
		}
	}
	return out
}

func renderStatus(s Status) render.Status {
	switch s {
	case StatusInProgress:
		return render.InProgress
	case StatusCompleted:
		return render.Completed
	}
	return render.Pending
}

// footer counts the completed items.
func footer(items []Item) string {
	if len(items) == 0 {
		return EmptyText
	}
	done := 0
	for _, it := range items {
		if it.Status == StatusCompleted {
			done++
		}
	}
	return fmt.Sprintf(boxFooterFormat, done, len(items))
}

// RenderANSI draws the list as a box for a terminal width columns wide: ✓
// and struck through for completed items, ▶ and bold for the item in
// progress, ○ for pending ones; high-priority items are marked. Model text
// is sanitized: no control character reaches the terminal.
func RenderANSI(items []Item, width int) string {
	return render.Box(BoxTitle, rows(items), footer(items), width)
}

// RenderHTML renders the list as an HTML fragment, a list with one CSS
// class per status (see [Stylesheet]); all text is escaped.
func RenderHTML(items []Item) string {
	return render.HTML(BoxTitle+" — "+footer(items), ClassList, false, rows(items))
}
