package acp_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/fx"

	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/planreview"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

// chooseID answers a permission request with the option of that ID.
func chooseID(id sdk.PermissionOptionId) func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selected(id), nil
	}
}

// TestPlanReviewOptionsSayWhatTheyDo checks the review's permission
// options with every plan-review answer configured: each approving option
// is allow_once, the others reject_once, Approve with comments (which
// needs text) is not offered, each is named alike from the catalog's
// words for its role ("label: description"), and each option does what
// its kind says.
func TestPlanReviewOptionsSayWhatTheyDo(t *testing.T) {
	wantOptions := []string{
		"approve=allow_once",
		"approve-and-clear=allow_once",
		"abandon=reject_once",
		"keep-planning=reject_once",
		"_speak=reject_once",
	}
	w := &present.English.Review
	wantNames := map[sdk.PermissionOptionId]string{
		"approve":           optionName(w.Options[host.RoleApprove]),
		"approve-and-clear": optionName(w.Options[host.RoleApproveAndClear]),
		"abandon":           optionName(w.Options[host.RoleAbandon]),
		"keep-planning":     keepPlanningName,
		"_speak":            optionName(w.Dismiss),
	}
	tests := []struct {
		choose    sdk.PermissionOptionId
		wantModes []string
		wantInRes string // in the exit_plan_mode result the model gets
	}{
		{"approve", []string{"plan", "default"}, "approved"},
		{"approve-and-clear", []string{"plan", "default"}, "cleared"},
		{"abandon", []string{"plan", "default"}, "abandoned"},
		{"keep-planning", []string{"plan"}, "keep planning"},
		{"_speak", []string{"plan"}, "dismissed"},
	}
	for _, tt := range tests {
		t.Run(string(tt.choose), func(t *testing.T) {
			model := planSteps(scripted.Step{Text: "Next."})
			h := newHostParts(t, newStore(t), model, fx.Supply(planreview.Config{Options: []string{
				planreview.OptionApproveWithComments, planreview.OptionApproveAndClear, planreview.OptionAbandon,
			}}), planreview.Module)
			s := openSession(t, h, func(c *acp.Config) { c.Plans = acp.CompanionPlans{} })
			s.planMode(chooseID(tt.choose))
			s.mustPrompt("Add a Goodbye function.")
			us, asks := s.c.snapshot()
			if len(asks) != 1 {
				t.Fatalf("permission requests = %d, want 1", len(asks))
			}
			if tc := asks[0].ToolCall; tc.Title == nil || *tc.Title != "Plan review: Add Goodbye" || tc.Kind == nil || *tc.Kind != sdk.ToolKindSwitchMode {
				t.Errorf("the request's tool call has title %v and kind %v, want %q and switch_mode", tc.Title, tc.Kind, "Plan review: Add Goodbye")
			}
			var got []string
			for _, o := range asks[0].Options {
				got = append(got, string(o.OptionId)+"="+string(o.Kind))
				if o.Name != wantNames[o.OptionId] {
					t.Errorf("option %s is named %q, want %q", o.OptionId, o.Name, wantNames[o.OptionId])
				}
				if strings.Contains(strings.ToLower(o.Name), "comment") {
					t.Errorf("option %q is offered, but a permission option cannot carry comments", o.Name)
				}
			}
			if !slices.Equal(got, wantOptions) {
				t.Errorf("options = %v, want %v", got, wantOptions)
			}
			if got := planBeforeReview(t, s.fromSide.all()); len(got) != 2 || !strings.Contains(got[0].Content, "Goodbye") ||
				!strings.Contains(got[1].Content, "Test it") || got[0].Status != sdk.PlanEntryStatusPending || got[1].Status != sdk.PlanEntryStatusPending {
				t.Errorf("plan sent before the review = %+v, want the plan's two steps, pending", got)
			}
			if modes := modeUpdates(us); !slices.Equal(modes, tt.wantModes) {
				t.Errorf("mode updates = %v, want %v", modes, tt.wantModes)
			}
			reqs := model.Requests()
			var result string
			for _, m := range reqs[len(reqs)-1].Messages {
				if m.Role == refhost.RoleTool {
					result = m.Text
				}
			}
			if tt.choose == "approve-and-clear" {
				// The conversation restarts from the plan alone.
				result = strings.Join(func() []string {
					var s []string
					for _, m := range reqs[len(reqs)-1].Messages {
						for _, b := range m.Content {
							s = append(s, b.Text)
						}
						s = append(s, m.Text)
					}
					return s
				}(), "\n")
			}
			if !strings.Contains(strings.ToLower(result), tt.wantInRes) {
				t.Errorf("the model got %q, want it to say %q", result, tt.wantInRes)
			}
		})
	}
}

// planBeforeReview returns the entries of the last plan update the agent
// wrote before its first session/request_permission.
func planBeforeReview(t *testing.T, lines [][]byte) []sdk.PlanEntry {
	t.Helper()
	var last []sdk.PlanEntry
	for _, l := range lines {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Update struct {
					SessionUpdate string          `json:"sessionUpdate"`
					Entries       []sdk.PlanEntry `json:"entries"`
				} `json:"update"`
			} `json:"params"`
		}
		if json.Unmarshal(l, &m) != nil {
			continue
		}
		switch {
		case m.Method == "session/request_permission":
			return last
		case m.Method == "session/update" && m.Params.Update.SessionUpdate == "plan":
			last = m.Params.Update.Entries
		}
	}
	return last
}
