package planmode

import (
	"encoding/json"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/exitresult"
	"github.com/dshgo/planmode/internal/planmd"
)

// PresentedPlan is a plan the session's log shows presented with
// exit_plan_mode, and how its review ended.
type PresentedPlan struct {
	// Number is the plan's place among the session's presented plans,
	// from 1, as "/plans" and "/plan reopen N" number them.
	Number int
	// CallID is the exit_plan_mode call that presented it.
	CallID string
	// Title is the plan's first heading ("" for none).
	Title string
	// Plan is the text: as presented (the call's "plan", or the result's
	// "plan" field when it has one), or as the user edited it when the
	// result reports an edit (its "editedPlan" field).
	Plan string
	// Outcome is how the review ended; "" when the log holds no result,
	// [ExitOutcomeNotLogged] for a result logged without an outcome.
	Outcome ExitOutcome
	// Edited reports that the user edited the plan in the review.
	Edited bool
	// Output is the result's output ("" with no result).
	Output string
	// IsError reports a failed result.
	IsError bool
	// ResultSeq is the Seq of the call's "tool/result" (0 with no result).
	ResultSeq uint64
	// Reopened reports the plan the latest [EventPlanReopen] names.
	Reopened bool
}

// ExitOutcomeNotLogged is the [PresentedPlan.Outcome] of a result logged
// without an outcome (written before outcomes were logged): answered, but
// how is unknown.
const ExitOutcomeNotLogged ExitOutcome = "not-logged"

// Plans reads the plans events shows presented with exit_plan_mode, in
// log order, with how each review ended and which one was reopened last.
// Malformed events are skipped.
func Plans(events host.Log) []PresentedPlan {
	var plans []PresentedPlan
	index := map[string]int{} // call ID → position in plans
	reopened := 0
	for _, e := range events.All() {
		switch e.Type {
		case host.TypeToolCall:
			var c host.ToolCall
			var in struct {
				Plan string `json:"plan"`
			}
			if json.Unmarshal(e.Data, &c) != nil || c.Name != ExitToolName || json.Unmarshal(c.Input, &in) != nil {
				continue
			}
			index[c.ID] = len(plans)
			plans = append(plans, PresentedPlan{Number: len(plans) + 1, CallID: c.ID, Title: planmd.Title(in.Plan), Plan: in.Plan})
		case host.TypeToolResult:
			var r host.ToolResult
			if json.Unmarshal(e.Data, &r) != nil || r.Name != ExitToolName {
				continue
			}
			i, ok := index[r.CallID]
			if !ok {
				continue
			}
			p := &plans[i]
			p.Outcome = ExitOutcome(r.Outcome)
			if p.Outcome == "" {
				p.Outcome = ExitOutcomeNotLogged
			}
			p.Output, p.IsError, p.ResultSeq = r.Output, r.IsError, e.Seq
			var res map[string]any
			if r.IsError || json.Unmarshal([]byte(r.Output), &res) != nil {
				continue
			}
			if text, ok := res[exitresult.Plan].(string); ok && text != "" {
				p.Plan, p.Title = text, planmd.Title(text)
			}
			if res[exitresult.EditedByUser] == true {
				p.Edited = true
				if text, ok := res[exitresult.EditedPlan].(string); ok {
					p.Plan = text
				}
			}
		case EventPlanReopen:
			if p, err := decodeReopen(e.Data); err == nil {
				reopened = p.Number
			}
		}
	}
	if reopened >= 1 && reopened <= len(plans) {
		plans[reopened-1].Reopened = true
	}
	return plans
}

// lastApproved returns the number of the last approved plan, 0 for none.
func lastApproved(plans []PresentedPlan) int {
	for i := len(plans) - 1; i >= 0; i-- {
		if plans[i].Outcome == ExitApproved {
			return plans[i].Number
		}
	}
	return 0
}
