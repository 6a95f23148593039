package approvewith_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/goleak"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/approvewith"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/internal/saveplan"
	"github.com/dshgo/planmode/refhost/scripted"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const plan = "# Tidy the logs\n\n1. Drop debug lines.\n"

func answer(label, custom string) []host.Answer {
	return []host.Answer{{QuestionID: e2etest.ReviewQuestionID, Selected: []string{label}, Custom: custom}}
}

// TestApproveAndExecuteWith checks that the option approves (plan mode is
// left, the outcome is an approval) and records the model in the result,
// that words with it keep planning, and that a plain approval records no
// model.
func TestApproveAndExecuteWith(t *testing.T) {
	label := approvewith.Label("doer")
	tests := []struct {
		name     string
		answers  []host.Answer
		approved bool
		model    any
	}{
		{"approve with the model", answer(label, ""), true, "doer"},
		{"words keep planning", answer(label, "not yet"), false, nil},
		{"plain approval names no model", answer(e2etest.ReviewApprove, ""), true, nil},
		{"another model's label is no answer", answer(approvewith.Label("other"), ""), false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := e2etest.New(t, fx.Supply(
				fx.Annotated{Group: planmode.ExitExtensionGroup, Target: approvewith.Extension("doer")},
				fx.Annotated{Group: planmode.ExitExtensionGroup, Target: saveplan.Extension()},
			))
			a := h.Agent()
			h.EnterPlanMode(a)
			h.User.QueueReply(scripted.Reply{Answers: tt.answers})
			h.Model.Add(e2etest.Call("x", planmode.ExitToolName, map[string]string{"plan": plan}), e2etest.Say("next"))
			h.Prompt(a, "plan")
			r := e2etest.Result(t, a, "x")
			if got := planmode.ExitOutcome(r.Outcome) == planmode.ExitApproved; got != tt.approved {
				t.Fatalf("approved = %v; want %v (result %+v)", got, tt.approved, r)
			}
			if e2etest.Active(a) == tt.approved {
				t.Errorf("plan mode active = %v after approved = %v", e2etest.Active(a), tt.approved)
			}
			if !tt.approved {
				return
			}
			var res map[string]any
			if err := json.Unmarshal([]byte(r.Output), &res); err != nil {
				t.Fatal(err)
			}
			if res[approvewith.ResultModel] != tt.model {
				t.Errorf("result %v: %s = %v; want %v", res, approvewith.ResultModel, res[approvewith.ResultModel], tt.model)
			}
			labels := optionLabels(h.User.Requests()[0])
			want := []string{e2etest.ReviewApprove, label, saveplan.Label, e2etest.ReviewKeepPlanning}
			if strings.Join(labels, "|") != strings.Join(want, "|") {
				t.Errorf("options %q; want %q", labels, want)
			}
		})
	}
}

func optionLabels(req host.AskRequest) []string {
	var labels []string
	for _, o := range req.Questions[0].Options {
		labels = append(labels, o.Label)
	}
	return labels
}

// TestOptionCarriesItsRoleAndModel checks that front ends can tell the
// option apart from the request alone: its role approves and it names
// the model, so nothing reads the model back out of the label.
func TestOptionCarriesItsRoleAndModel(t *testing.T) {
	opts := approvewith.Extension("doer").Options
	if len(opts) != 1 || opts[0].Role != host.RoleApproveWithModel || opts[0].Model != "doer" || !opts[0].Role.Approves() {
		t.Fatalf("options %+v; want one of role %q naming the model", opts, host.RoleApproveWithModel)
	}
}
