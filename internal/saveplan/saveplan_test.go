package saveplan_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/goleak"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/internal/saveplan"
	"github.com/dshgo/planmode/planreview"
	"github.com/dshgo/planmode/refhost/scripted"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const plan = "# Tidy the logs\n\n1. Drop debug lines.\n"

// review runs one exit call in plan mode answered by answers and returns
// the agent and the call's result.
func review(t *testing.T, answers []host.Answer, extra ...fx.Option) (host.Agent, host.ToolResult) {
	t.Helper()
	opts := append([]fx.Option{fx.Supply(fx.Annotated{Group: planmode.ExitExtensionGroup, Target: saveplan.Extension()})}, extra...)
	h := e2etest.New(t, opts...)
	a := h.Agent()
	h.EnterPlanMode(a)
	h.User.QueueReply(scripted.Reply{Answers: answers})
	h.Model.Add(e2etest.Call("x", planmode.ExitToolName, map[string]string{"plan": plan}), e2etest.Say("next"))
	h.Prompt(a, "plan")
	return a, e2etest.Result(t, a, "x")
}

func answer(label, custom string) []host.Answer {
	return []host.Answer{{QuestionID: e2etest.ReviewQuestionID, Selected: []string{label}, Custom: custom}}
}

func TestSavePlanAndStop(t *testing.T) {
	withReview := fx.Options(fx.Supply(planreview.Config{Options: []string{planreview.OptionAbandon}}), planreview.Module)
	tests := []struct {
		name    string
		answers []host.Answer
		extra   []fx.Option
		saved   bool
		want    string
	}{
		{"save", answer(saveplan.Label, ""), nil, true, "Do not implement it"},
		{"save beside plan-review", answer(saveplan.Label, ""), []fx.Option{withReview}, true, "Do not implement it"},
		{"save with words keeps planning", answer(saveplan.Label, "not yet"), nil, false, "not yet"},
		{"two selections keep planning", []host.Answer{{QuestionID: e2etest.ReviewQuestionID, Selected: []string{saveplan.Label, e2etest.ReviewApprove}}}, nil, false, ""},
		{"approve is not a save", answer(e2etest.ReviewApprove, ""), nil, false, `"approved":true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, r := review(t, tt.answers, tt.extra...)
			if got := saveplan.Saved(r.Output); got != tt.saved {
				t.Fatalf("Saved = %v for result %+v", got, r)
			}
			if !strings.Contains(r.Output, tt.want) {
				t.Fatalf("result %q lacks %q", r.Output, tt.want)
			}
			if !tt.saved {
				return
			}
			var res map[string]any
			if err := json.Unmarshal([]byte(r.Output), &res); err != nil {
				t.Fatal(err)
			}
			if r.IsError || res["approved"] != false || res[saveplan.ResultPlan] != plan {
				t.Fatalf("result %v", res)
			}
			if e2etest.Active(a) {
				t.Fatal("plan mode is still on after a save")
			}
			if got := planmode.ExitOutcome(r.Outcome); got != planmode.ExitAbandoned {
				t.Fatalf("outcome %q: a save leaves plan mode as an abandon, never an approval", got)
			}
		})
	}
}

func TestTheReviewOffersSave(t *testing.T) {
	h := e2etest.New(t, fx.Supply(fx.Annotated{Group: planmode.ExitExtensionGroup, Target: saveplan.Extension()}))
	a := h.Agent()
	h.EnterPlanMode(a)
	h.User.QueueReply(scripted.Reply{Answers: answer(e2etest.ReviewApprove, "")})
	h.Model.Add(e2etest.Call("x", planmode.ExitToolName, map[string]string{"plan": plan}), e2etest.Say("next"))
	h.Prompt(a, "plan")
	reqs := h.User.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests %d", len(reqs))
	}
	var labels []string
	for _, o := range reqs[0].Questions[0].Options {
		labels = append(labels, o.Label)
	}
	want := []string{e2etest.ReviewApprove, saveplan.Label, e2etest.ReviewKeepPlanning}
	if strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Fatalf("options %q, want %q", labels, want)
	}
}
