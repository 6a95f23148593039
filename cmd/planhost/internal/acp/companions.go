package acp

import (
	"cmp"
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/planfile"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/todo"
)

// CompanionToolKinds are the protocol's tool kinds of the companion
// plugins' tools, for [Config.ToolKinds]: the todo and plan-steps tools
// and ask_user are the agent's own bookkeeping (think), the plan file is
// read and edited, and entering plan mode switches the mode.
func CompanionToolKinds() map[string]sdk.ToolKind {
	return map[string]sdk.ToolKind{
		todo.ReadToolName:              sdk.ToolKindThink,
		todo.WriteToolName:             sdk.ToolKindThink,
		plansteps.StatusToolName:       sdk.ToolKindThink,
		plansteps.StepCompleteToolName: sdk.ToolKindThink,
		plansteps.ModifyToolName:       sdk.ToolKindThink,
		plansteps.CompleteToolName:     sdk.ToolKindThink,
		planfile.ReadToolName:          sdk.ToolKindRead,
		planfile.WriteToolName:         sdk.ToolKindEdit,
		planentry.ToolName:             sdk.ToolKindSwitchMode,
		planask.ToolName:               sdk.ToolKindThink,
	}
}

// CompanionPlans is the [PlanFeed] of plan mode and the companion
// plugins: the plan a client shows is the steps of the approved plan being
// executed (plan-steps), then the steps of the plan under review, then the
// agent's todo list (todo), each entry a row of the boxes every front end
// shows ([present.Catalog.StepsBox], [present.Catalog.TodoBox]), in their
// words and with their status.
//
// The steps come from folding the plan-steps events ([plansteps.Apply]),
// all of high priority; once the execution is completed its steps leave
// the plan. The plan under review is the one an exit_plan_mode call
// presents: its "steps" argument when it has a valid one, else the plan's
// first numbered Markdown list ([plansteps.MarkdownSteps]), each step
// pending and of high priority, shown from the call until its result. The
// todo list is the one the latest successful todo_write or todo_read
// result in the log returned, each item with its own priority. All of it
// lives in the log, so a loaded session shows the state its log ends with.
type CompanionPlans struct {
	// Catalog holds the entries' words; nil for English.
	Catalog *present.Catalog
}

// Follow implements [PlanFeed].
func (f CompanionPlans) Follow(string) func(host.Event) ([]sdk.PlanEntry, bool) {
	cat := cmp.Or(f.Catalog, present.English)
	var (
		steps    plansteps.State
		todos    []todo.Item
		review   string // the exit_plan_mode call under review
		proposed []plansteps.Step
	)
	return func(e host.Event) ([]sdk.PlanEntry, bool) {
		switch e.Type {
		case plansteps.EventSteps, plansteps.EventStepCompleted, plansteps.EventStepModified, plansteps.EventCompleted:
			next := plansteps.Apply(steps, e)
			changed := next.Plan != steps.Plan
			steps = next
			if !changed {
				return nil, false
			}
		case host.TypeToolCall:
			id, planned, ok := reviewSteps(e)
			if !ok {
				return nil, false
			}
			changed := len(proposed) > 0 || len(planned) > 0
			review, proposed = id, planned
			if !changed {
				return nil, false
			}
		case host.TypeToolResult:
			var r host.ToolResult
			if json.Unmarshal(e.Data, &r) != nil {
				return nil, false
			}
			if review != "" && r.CallID == review {
				// The review is over: approved steps come back as the
				// execution's (plan/steps precedes this result).
				changed := len(proposed) > 0
				review, proposed = "", nil
				if !changed {
					return nil, false
				}
				break
			}
			items, ok := todoResult(r)
			if !ok {
				return nil, false
			}
			todos = items
		default:
			return nil, false
		}
		return planEntries(cat, steps.Plan, proposed, todos), true
	}
}

// reviewSteps returns the ID and the steps of an exit_plan_mode call.
func reviewSteps(e host.Event) (string, []plansteps.Step, bool) {
	var c host.ToolCall
	if json.Unmarshal(e.Data, &c) != nil || c.Name != planmode.ExitToolName {
		return "", nil, false
	}
	var in struct {
		Plan  string          `json:"plan"`
		Steps json.RawMessage `json:"steps"`
	}
	_ = json.Unmarshal(c.Input, &in)
	if len(in.Steps) > 0 {
		if given, err := plansteps.DecodeSteps(in.Steps, plansteps.MaxSteps); err == nil && len(given) > 0 {
			return c.ID, given, true
		}
	}
	listed, _ := plansteps.MarkdownSteps(in.Plan, plansteps.MaxSteps)
	return c.ID, listed, true
}

// todoResult returns the list a successful todo tool result holds.
func todoResult(r host.ToolResult) ([]todo.Item, bool) {
	if r.IsError || (r.Name != todo.WriteToolName && r.Name != todo.ReadToolName) {
		return nil, false
	}
	l, err := todo.ParseList([]byte(r.Output))
	if err != nil {
		return nil, false
	}
	return l.Todos, true
}

// planEntries returns the protocol's entries of an execution's steps, the
// steps of the plan under review and a todo list: the rows of their boxes;
// never nil.
func planEntries(cat *present.Catalog, x *plansteps.Execution, proposed []plansteps.Step, todos []todo.Item) []sdk.PlanEntry {
	entries := []sdk.PlanEntry{}
	add := func(rows []present.Row, priority func(i int) sdk.PlanEntryPriority) {
		for i, r := range rows {
			entries = append(entries, sdk.PlanEntry{Content: shownEntry(r.Text), Priority: priority(i), Status: entryStatus(r.Status)})
		}
	}
	high := func(int) sdk.PlanEntryPriority { return sdk.PlanEntryPriorityHigh }
	if x != nil && !x.Done {
		add(cat.StepsBox(x).Rows, high)
	}
	if len(proposed) > 0 {
		// Nothing of a plan under review is in progress yet.
		review := &plansteps.Execution{Steps: make([]plansteps.StepState, len(proposed))}
		for i, st := range proposed {
			review.Steps[i].Step = st
		}
		rows := cat.StepsBox(review).Rows
		for i := range rows {
			rows[i].Status = present.Pending
		}
		add(rows, high)
	}
	add(cat.TodoBox(todos).Rows, func(i int) sdk.PlanEntryPriority { return entryPriority(todos[i].Priority) })
	return entries
}

func entryPriority(p todo.Priority) sdk.PlanEntryPriority {
	switch p {
	case todo.PriorityHigh:
		return sdk.PlanEntryPriorityHigh
	case todo.PriorityLow:
		return sdk.PlanEntryPriorityLow
	}
	return sdk.PlanEntryPriorityMedium
}

func entryStatus(s present.Status) sdk.PlanEntryStatus {
	switch s {
	case present.InProgress:
		return sdk.PlanEntryStatusInProgress
	case present.Completed:
		return sdk.PlanEntryStatusCompleted
	}
	return sdk.PlanEntryStatusPending
}
