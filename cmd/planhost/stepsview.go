package main

import (
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/cmd/planhost/internal/safetext"
	"github.com/dshgo/planmode/plansteps"
)

// shownSteps returns a copy of x for the step box: the title, each step's
// description, verification and verification result as the text their
// Markdown shows (see mdview.Text), without backticks and other marks but
// with every character; nil for nil. x is not changed.
func shownSteps(x *plansteps.Execution) *plansteps.Execution {
	if x == nil {
		return nil
	}
	y := *x
	y.Title = shownText(x.Title)
	y.Steps = make([]plansteps.StepState, len(x.Steps))
	for i, st := range x.Steps {
		st.Description = shownText(st.Description)
		st.Verification = shownText(st.Verification)
		st.VerificationResult = shownText(st.VerificationResult)
		y.Steps[i] = st
	}
	return &y
}

// shownText is model-written Markdown as the step box shows it.
func shownText(s string) string {
	if s == "" {
		return ""
	}
	return mdview.Text(safetext.Markdown(s))
}
