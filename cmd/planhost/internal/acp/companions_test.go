package acp_test

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/todo"
)

// lastPlan returns the entries of the last plan update in us.
func lastPlan(us []sdk.SessionNotification) ([]sdk.PlanEntry, bool) {
	for i := len(us) - 1; i >= 0; i-- {
		if p := us[i].Update.Plan; p != nil {
			return p.Entries, true
		}
	}
	return nil, false
}

func samePlan(got, want []sdk.PlanEntry) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].Content != want[i].Content || got[i].Priority != want[i].Priority || got[i].Status != want[i].Status {
			return false
		}
	}
	return true
}

// reviewPlan is a plan whose numbered list holds the steps of its review.
const reviewPlan = "# Greeter\n\n1. Write Goodbye\n2. Test Goodbye\n"

func TestCompanionPlansSendTodoListAndPlanSteps(t *testing.T) {
	todoList := todo.List{Todos: []todo.Item{
		{ID: "1", Content: "Add Goodbye", Status: todo.StatusCompleted, Priority: todo.PriorityHigh},
		{ID: "2", Content: "Test it", Status: todo.StatusInProgress, Priority: todo.PriorityLow},
		{ID: "3", Content: "Update docs", Status: todo.StatusPending, Priority: todo.PriorityMedium},
	}}
	// Each entry is a row of the box every front end shows, as Markdown
	// that shows it as it is.
	todoEntries := []sdk.PlanEntry{
		{Content: mdview.Literal("[" + present.English.Boxes.High + "] Add Goodbye"), Priority: "high", Status: "completed"},
		{Content: "Test it", Priority: "low", Status: "in_progress"},
		{Content: "Update docs", Priority: "medium", Status: "pending"},
	}
	write, test := mdview.Literal("1. Write Goodbye"), mdview.Literal("2. Test Goodbye")
	steps := plansteps.StepsPayload{Title: "Greeter", Source: plansteps.SourceSteps, Steps: []plansteps.Step{
		{ID: 1, Description: "Write Goodbye"},
		{ID: 2, Description: "Test Goodbye", DependsOn: []int{1}},
	}}
	type step struct {
		events []host.Event
		want   []sdk.PlanEntry
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"todo_write result", []step{{
			events: []host.Event{{Type: host.TypeToolResult, Data: mustJSON(t, host.ToolResult{CallID: "c1", Name: todo.WriteToolName, Output: string(mustJSON(t, todoList))})}},
			want:   todoEntries,
		}}},
		{"plan steps then a completed step", []step{
			{events: []host.Event{{Type: plansteps.EventSteps, Data: mustJSON(t, steps)}}, want: []sdk.PlanEntry{
				{Content: write, Priority: "high", Status: "in_progress"},
				{Content: test, Priority: "high", Status: "pending"},
			}},
			{events: []host.Event{{Type: plansteps.EventStepCompleted, Data: mustJSON(t, plansteps.StepCompletedPayload{Step: 1})}}, want: []sdk.PlanEntry{
				{Content: write, Priority: "high", Status: "completed"},
				{Content: test, Priority: "high", Status: "in_progress"},
			}},
		}},
		{"steps first, then the todo list", []step{
			{events: []host.Event{
				{Type: plansteps.EventSteps, Data: mustJSON(t, steps)},
				{Type: host.TypeToolResult, Data: mustJSON(t, host.ToolResult{CallID: "c1", Name: todo.ReadToolName, Output: string(mustJSON(t, todoList))})},
			}, want: append([]sdk.PlanEntry{
				{Content: write, Priority: "high", Status: "in_progress"},
				{Content: test, Priority: "high", Status: "pending"},
			}, todoEntries...)},
		}},
		{"a plan under review, then kept planning", []step{
			{events: []host.Event{
				{Type: host.TypeToolResult, Data: mustJSON(t, host.ToolResult{CallID: "c1", Name: todo.WriteToolName, Output: string(mustJSON(t, todoList))})},
				{Type: host.TypeToolCall, Data: mustJSON(t, call("p1", planmode.ExitToolName, map[string]string{"plan": reviewPlan}))},
			}, want: append([]sdk.PlanEntry{
				{Content: write, Priority: "high", Status: "pending"},
				{Content: test, Priority: "high", Status: "pending"},
			}, todoEntries...)},
			{events: []host.Event{{Type: host.TypeToolResult, Data: mustJSON(t, host.ToolResult{CallID: "p1", Name: planmode.ExitToolName, Output: "keep planning", IsError: true})}}, want: todoEntries},
		}},
		{"a plan under review with its steps argument, then approved", []step{
			{events: []host.Event{{Type: host.TypeToolCall, Data: mustJSON(t, call("p1", planmode.ExitToolName, map[string]any{
				"plan": reviewPlan, "steps": []map[string]string{{"description": "Only this"}},
			}))}}, want: []sdk.PlanEntry{{Content: mdview.Literal("1. Only this"), Priority: "high", Status: "pending"}}},
			{events: []host.Event{
				{Type: plansteps.EventSteps, Data: mustJSON(t, steps)},
				{Type: host.TypeToolResult, Data: mustJSON(t, host.ToolResult{CallID: "p1", Name: planmode.ExitToolName, Output: "{}"})},
			}, want: []sdk.PlanEntry{
				{Content: write, Priority: "high", Status: "in_progress"},
				{Content: test, Priority: "high", Status: "pending"},
			}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			withFeed := func(c *acp.Config) { c.Plans = acp.CompanionPlans{}; c.ToolKinds = acp.CompanionToolKinds() }
			s := openSession(t, newHostParts(t, newStore(t), scripted.NewModel()), withFeed)
			hs := s.open()
			var want []sdk.PlanEntry
			for _, st := range tc.steps {
				for _, e := range st.events {
					if _, err := hs.Append(e); err != nil {
						t.Fatal(err)
					}
				}
				want = st.want
				s.c.waitUpdates(t, "plan update", func(us []sdk.SessionNotification) bool {
					got, ok := lastPlan(us)
					return ok && samePlan(got, want)
				})
			}
			// A failed todo_write changes nothing.
			if _, err := hs.Append(host.Event{Type: host.TypeToolResult, Data: mustJSON(t, host.ToolResult{CallID: "bad", Name: todo.WriteToolName, Output: "todo_write: bad", IsError: true})}); err != nil {
				t.Fatal(err)
			}
			s.close()
			if got, _ := lastPlan(mustSnapshot(s.conn)); !samePlan(got, want) {
				t.Errorf("after a failed write the plan is %+v, want %+v", got, want)
			}
			checkTraffic(t, goSDKSchema(t), s.fromSide.all(), s.toSide.all())

			// session/load sends the state the log ends with.
			again := connect(t, s.h, withFeed)
			again.initialize()
			again.load(s.id, s.dir)
			if got, ok := lastPlan(mustSnapshot(again)); !ok || !samePlan(got, want) {
				t.Errorf("plan on load = %+v, want %+v", got, want)
			}
		})
	}
}

func TestCompanionPlansDropACompletedExecution(t *testing.T) {
	follow := acp.CompanionPlans{}.Follow("s")
	steps := plansteps.StepsPayload{Title: "T", Source: plansteps.SourceSteps, Steps: []plansteps.Step{{ID: 1, Description: "Only"}}}
	if got, ok := follow(host.Event{Seq: 1, Type: plansteps.EventSteps, Data: mustJSON(t, steps)}); !ok || len(got) != 1 {
		t.Fatalf("steps: %+v %v", got, ok)
	}
	got, ok := follow(host.Event{Seq: 2, Type: plansteps.EventCompleted, Data: mustJSON(t, plansteps.CompletedPayload{Summary: "done"})})
	if !ok || got == nil || len(got) != 0 {
		t.Errorf("after completion: %+v %v, want an empty plan", got, ok)
	}
	if _, ok := follow(host.Event{Seq: 3, Type: host.TypeAssistantMessage, Data: mustJSON(t, map[string]string{"text": "hi"})}); ok {
		t.Error("an unrelated event reported a change")
	}
}

func TestCompanionToolKinds(t *testing.T) {
	kinds := acp.CompanionToolKinds()
	for name, want := range map[string]sdk.ToolKind{
		"todo_write": sdk.ToolKindThink, "todo_read": sdk.ToolKindThink, "plan_status": sdk.ToolKindThink,
		"plan_step_complete": sdk.ToolKindThink, "plan_modify": sdk.ToolKindThink, "plan_complete": sdk.ToolKindThink,
		"plan_write": sdk.ToolKindEdit, "plan_read": sdk.ToolKindRead, "enter_plan_mode": sdk.ToolKindSwitchMode,
	} {
		if kinds[name] != want {
			t.Errorf("kind of %s = %q, want %q", name, kinds[name], want)
		}
	}
}
