package acp_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
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
	if !strings.Contains(agentText(us), mdview.Literal(fmt.Sprintf(present.English.Session.PlanReopened, 1))) { // escaped, as every line but the model's
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

// TestCommandWordsFollowTheCatalog: the commands the editor lists and the
// reply to "/plan" are in the catalog's words, Chinese here, as in every
// front end; not the host's English.
func TestCommandWordsFollowTheCatalog(t *testing.T) {
	st := newStore(t)
	h := newHostParts(t, st, planSteps())
	k := connect(t, h, func(c *acp.Config) { c.Catalog = present.Chinese })
	k.initialize()
	sess := k.newSession(workspaceDir(t))
	if _, err := k.prompt(sess.SessionId, "/plan"); err != nil {
		t.Fatal(err)
	}
	us, _ := k.c.snapshot()
	want := fmt.Sprintf(present.Chinese.Session.Reply, "plan", present.Chinese.Session.PlanOn)
	if got := agentText(us); !strings.Contains(got, want) {
		t.Errorf("agent text %q, want the reply %q", got, want)
	}
	var described bool
	for _, u := range us {
		if a := u.Update.AvailableCommandsUpdate; a != nil {
			for _, c := range a.AvailableCommands {
				described = described || c.Name == "plan" && c.Description == present.Chinese.Commands["plan"].Description
			}
		}
	}
	if !described {
		t.Error("the available commands do not describe /plan in the catalog's words")
	}
}
