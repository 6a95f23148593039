package present

import (
	"fmt"
	"strconv"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planask"
)

// PlansList is /plans: the plans the log shows presented, numbered as
// "/plan reopen N" numbers them, each with how its review ended and the
// one reopened last marked, then the questions from the model with their
// answers. open says that a review is under way: the last plan without a
// result waits for it, rather than having gone unanswered.
func (c *Catalog) PlansList(log host.Log, open bool) []Item {
	plans := planmode.Plans(log)
	out := []Item{{Kind: Note, Text: c.Plans.None}}
	if len(plans) > 0 {
		rows := make([]Row, 0, len(plans))
		for i, p := range plans {
			rows = append(rows, Row{Status: Unmarked, Text: c.planLine(p, open && i == len(plans)-1)})
		}
		out = []Item{{Kind: Box, Title: c.Plans.Header, Rows: rows}}
	}
	var asked []Row
	for _, a := range planask.Asks(log) {
		asked = append(asked, c.AnswersBox(a).Rows...)
	}
	if len(asked) > 0 {
		out = append(out, Item{Kind: Box, Title: c.Plans.Questions, Rows: asked})
	}
	return out
}

// planLine is one plan of /plans: its number, title and outcome.
func (c *Catalog) planLine(p planmode.PresentedPlan, waiting bool) string {
	outcome := c.Plans.Unanswered
	switch {
	case waiting && p.Outcome == "":
		outcome = c.Plans.Open
	case p.Outcome == planmode.ExitOutcomeNotLogged:
		outcome = c.Plans.Unknown
	case p.Outcome != "":
		var res map[string]any
		if !p.IsError {
			_ = decode([]byte(p.Output), &res)
		}
		outcome = c.Outcome(p.Outcome, res)
	}
	if p.Reopened {
		outcome += "; " + c.Plans.Reopened
	}
	title := p.Title
	if title == "" {
		title = c.Session.Untitled
	}
	return fmt.Sprintf("%d. %s — %s", p.Number, OneLine(title), outcome)
}

// PlanN is "/plans N": plan N of the log, with its line of /plans as the
// title; an error naming arg when the log holds no such plan.
func (c *Catalog) PlanN(log host.Log, arg string) (Item, error) {
	plans := planmode.Plans(log)
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > len(plans) {
		return Item{}, fmt.Errorf(c.Plans.Bad, arg)
	}
	p := plans[n-1]
	return Item{Kind: Plan, Title: c.planLine(p, false), Text: p.Plan}, nil
}
