package present_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/internal/present"
)

// presented logs a plan presented with exit_plan_mode that ended with
// outcome: the text, or none for a plan presented from a file.
func presented(t *testing.T, s host.Session, id, plan string, outcome planmode.ExitOutcome) {
	t.Helper()
	input, err := json.Marshal(map[string]string{"plan": plan})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []host.Event{
		event(t, host.TypeToolCall, host.ToolCall{ID: id, Name: planmode.ExitToolName, Input: input}),
		event(t, host.TypeToolResult, host.ToolResult{CallID: id, Name: planmode.ExitToolName, Output: "done", Outcome: string(outcome)}),
	} {
		if _, err := host.Append(context.Background(), s, e); err != nil {
			t.Fatal(err)
		}
	}
}

// twoPlans logs two plans the user sent back.
func twoPlans(t *testing.T, s host.Session) {
	presented(t, s, "c1", "# One\n\n1. Do it.", planmode.ExitKeepPlanning)
	presented(t, s, "c2", "# Two\n\n1. Do it.", planmode.ExitKeepPlanning)
}

// TestPlanFailuresInTheUsersWords: a /plan that fails shows "/plan
// failed:" once, then why in the catalog's words, said from the error's
// code and details (how many plans there are, the plan's number), never
// with the English message the host gets.
func TestPlanFailuresInTheUsersWords(t *testing.T) {
	image := host.Block{Type: host.BlockImage, MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}
	tests := []struct {
		name   string
		setup  func(*testing.T, host.Session)
		line   string
		images bool
		want   func(w *present.SessionWords) string
	}{
		{"no plan N among none", nil, "/plan reopen 4", false, func(w *present.SessionWords) string { return w.NoPlans }},
		{"no plan N among two", twoPlans, "/plan reopen 4", false, func(w *present.SessionWords) string { return fmt.Sprintf(w.NoSuchPlan, 2) }},
		{"two numbers", twoPlans, "/plan reopen 1 2", false, func(w *present.SessionWords) string { return fmt.Sprintf(w.NoSuchPlan, 2) }},
		{"no approved plan", twoPlans, "/plan reopen", false, func(w *present.SessionWords) string { return w.NoApprovedPlan }},
		{"a plan whose text the log lacks", func(t *testing.T, s host.Session) {
			twoPlans(t, s)
			presented(t, s, "c3", "", planmode.ExitApproved)
		}, "/plan reopen", false, func(w *present.SessionWords) string { return fmt.Sprintf(w.PlanNotLogged, 3) }},
		{"off with images", nil, "/plan off", true, func(w *present.SessionWords) string { return w.OffWithImages }},
		{"reopen with images", twoPlans, "/plan reopen 1", true, func(w *present.SessionWords) string { return w.ReopenWithImages }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := e2etest.New(t)
			a := h.Agent()
			if tt.setup != nil {
				tt.setup(t, a.Session())
			}
			var atts []host.Block
			if tt.images {
				atts = []host.Block{image}
			}
			handled, reply, err := h.Runtime.Execute(context.Background(), a, tt.line, atts)
			if !handled || err == nil {
				t.Fatalf("%s = %v, %q, %v; want an error", tt.line, handled, reply, err)
			}
			for _, cat := range []*present.Catalog{present.English, present.Chinese} {
				items := cat.CommandReply(planmode.CommandName, true, reply, err, planmode.State{}, true, 0)
				want := fmt.Sprintf(cat.Session.CommandFailed, planmode.CommandName, tt.want(&cat.Session))
				if len(items) != 1 || items[0].Kind != present.Error || items[0].Text != want {
					t.Errorf("%s: %s shows %+v, want the error %q", cat.Lang, tt.line, items, want)
				}
				if msg := strings.TrimPrefix(err.Error(), "/plan: "); len(items) > 0 && strings.Contains(items[0].Text, msg) {
					t.Errorf("%s: %s shows the host's message %q", cat.Lang, tt.line, msg)
				}
			}
		})
	}
}
