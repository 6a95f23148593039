package acp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost/scripted"
)

// TestPlanReopenReentersPlanModeAndTheReviewShowsTheChange protects
// "/plan reopen" over ACP: the command re-enters plan mode with the
// approved plan as the draft, and the next review shows what changed.
func TestPlanReopenReentersPlanModeAndTheReviewShowsTheChange(t *testing.T) {
	revised := testPlan + "\n3. Document it."
	model := planSteps(
		scripted.Step{Text: "Done."},
		scripted.Step{Text: "Revised.", ToolCalls: []host.ToolCall{call("c5", "exit_plan_mode", map[string]string{"plan": revised})}},
		scripted.Step{Text: "Done again."},
	)
	s := openSession(t, newHostParts(t, newStore(t), model))
	s.planMode(approve)
	s.mustPrompt("Add a Goodbye function.")
	s.mustPrompt("/plan reopen 1")
	us, _ := s.c.snapshot()
	if got := modeUpdates(us); !slices.Equal(got, []string{"plan", "default", "plan"}) {
		t.Fatalf("mode updates = %v, want [plan default plan]", got)
	}
	if !strings.Contains(agentText(us), "plan 1 reopened") {
		t.Errorf("agent text %q lacks the reopen reply", agentText(us))
	}
	s.mustPrompt("Document it too.")
	_, asks := s.c.snapshot()
	if len(asks) != 2 {
		t.Fatalf("permission requests = %d, want 2", len(asks))
	}
	if c := asks[1].ToolCall.Content; !contentHas(c, "What changed since the plan you reopened") || !contentHas(c, "+3. Document it.") {
		t.Errorf("second review content lacks the diff against the reopened plan: %+v", c)
	}
	if contentHas(asks[0].ToolCall.Content, "What changed since the plan you reopened") {
		t.Errorf("first review shows a reopen diff")
	}
}
