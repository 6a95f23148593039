package planreview_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/goleak"
	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/planreview"
	"github.com/dshgo/planmode/refhost/scripted"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const plan = "# Tidy the logs\n\n1. Drop debug lines.\n"

var allOptions = []string{planreview.OptionApproveWithComments, planreview.OptionApproveAndClear, planreview.OptionAbandon}

func reviewHost(t *testing.T, cfg planreview.Config) *e2etest.Host {
	t.Helper()
	return e2etest.New(t, fx.Supply(cfg), planreview.Module)
}

func answer(label, custom string) host.Answer {
	return host.Answer{QuestionID: e2etest.ReviewQuestionID, Selected: []string{label}, Custom: custom}
}

// review runs one exit call in plan mode answered by reply and returns the
// agent and the call's result.
func review(t *testing.T, h *e2etest.Host, reply *scripted.Reply) (host.Agent, host.ToolResult) {
	t.Helper()
	a := h.Agent()
	h.EnterPlanMode(a)
	if reply != nil {
		h.User.QueueReply(*reply)
	}
	h.Model.Add(e2etest.Call("x", planmode.ExitToolName, map[string]string{"plan": plan}), e2etest.Say("next"))
	h.Prompt(a, "plan")
	return a, e2etest.Result(t, a, "x")
}

func TestTheReviewOffersApproveTheExtrasAndKeepPlanning(t *testing.T) {
	h := reviewHost(t, planreview.Config{Options: []string{planreview.OptionAbandon, planreview.OptionApproveWithComments}})
	review(t, h, &scripted.Reply{Answers: []host.Answer{answer(e2etest.ReviewKeepPlanning, "")}})
	var labels []string
	for _, o := range h.User.Requests()[0].Questions[0].Options {
		labels = append(labels, o.Label)
	}
	want := []string{e2etest.ReviewApprove, planreview.LabelAbandon, planreview.LabelApproveWithComments, e2etest.ReviewKeepPlanning}
	if strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Fatalf("options %v; want %v", labels, want)
	}
}

func TestAnswers(t *testing.T) {
	tests := []struct {
		name     string
		give     []host.Answer
		approved bool   // the call succeeds and plan mode ends
		want     string // substring of the result or error
	}{
		{"approve", []host.Answer{answer(e2etest.ReviewApprove, "")}, true, `"approved":true`},
		{"approve with comments", []host.Answer{answer(planreview.LabelApproveWithComments, "use a flag")}, true, `"comments":"use a flag"`},
		{"approve with comments but no text keeps planning", []host.Answer{answer(planreview.LabelApproveWithComments, " ")}, false, "keep planning"},
		{"comments over 16 KiB keep planning", []host.Answer{answer(planreview.LabelApproveWithComments, strings.Repeat("c", 16<<10+1))}, false, "16 KiB"},
		{"abandon", []host.Answer{answer(planreview.LabelAbandon, "")}, true, `"abandoned":true`},
		{"abandon with words keeps planning", []host.Answer{answer(planreview.LabelAbandon, "wait, no")}, false, "wait, no"},
		{"two selections keep planning", []host.Answer{{QuestionID: e2etest.ReviewQuestionID, Selected: []string{e2etest.ReviewApprove, planreview.LabelAbandon}}}, false, "keep planning"},
		{"two answers keep planning", []host.Answer{answer(planreview.LabelAbandon, ""), answer(planreview.LabelAbandon, "")}, false, "keep planning"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := reviewHost(t, planreview.Config{Options: allOptions})
			a, r := review(t, h, &scripted.Reply{Answers: tt.give})
			if r.IsError == tt.approved || !strings.Contains(r.Output, tt.want) {
				t.Fatalf("result %+v; want approved=%v with %q", r, tt.approved, tt.want)
			}
			if e2etest.Active(a) == tt.approved {
				t.Fatalf("plan mode on = %v after the answer", e2etest.Active(a))
			}
		})
	}
}

func TestAbandonTellsTheModelToDoNoneOfIt(t *testing.T) {
	h := reviewHost(t, planreview.Config{Options: []string{planreview.OptionAbandon}})
	a, r := review(t, h, &scripted.Reply{Answers: []host.Answer{answer(planreview.LabelAbandon, "")}})
	var res map[string]any
	if err := json.Unmarshal([]byte(r.Output), &res); err != nil {
		t.Fatal(err)
	}
	if res["approved"] != false || res["abandoned"] != true || !strings.Contains(res["message"].(string), "Do none of the plan") {
		t.Fatalf("result %v", res)
	}
	if e2etest.Active(a) {
		t.Fatal("still in plan mode")
	}
	for _, e := range e2etest.Events(a, host.TypeUserMessage) {
		if e.Source != nil && e.Source.Plugin == planmode.PluginName {
			t.Fatal("abandon recorded a notice")
		}
	}
}

func TestApproveAndClearRestartsTheContextFromThePlan(t *testing.T) {
	h := reviewHost(t, planreview.Config{Options: []string{planreview.OptionApproveAndClear}})
	a, r := review(t, h, &scripted.Reply{Answers: []host.Answer{answer(planreview.LabelApproveAndClear, "")}})
	if r.IsError || !strings.Contains(r.Output, `"cleared":true`) {
		t.Fatalf("result %+v", r)
	}
	sums := e2etest.Events(a, host.TypeCompactionSummary)
	if len(sums) != 1 || !strings.Contains(string(sums[0].Data), "Tidy the logs") {
		t.Fatalf("summaries %v", sums)
	}
	reqs := h.Model.Requests()
	last := reqs[len(reqs)-1]
	if len(last.Messages) != 1 || !strings.Contains(last.Messages[0].Text, plan) {
		t.Fatalf("the request after the approval sees %+v", last.Messages)
	}
}

func TestHeadlessPolicies(t *testing.T) {
	t.Run("approve approves, says so and logs plan/policy", func(t *testing.T) {
		h := reviewHost(t, planreview.Config{Options: []string{planreview.OptionAbandon}, Headless: planreview.HeadlessApprove})
		h.Detach()
		a, r := review(t, h, nil)
		if r.IsError || !strings.Contains(r.Output, `"policy":"headless: approve"`) {
			t.Fatalf("result %+v", r)
		}
		ev := e2etest.Events(a, planreview.EventPolicy)
		if len(ev) != 1 || string(ev[0].Data) != `{"policy":"headless","decision":"approve"}` {
			t.Fatalf("plan/policy %v", ev)
		}
		if e2etest.Active(a) {
			t.Fatal("still in plan mode")
		}
	})
	t.Run("keep-planning fails with a fixed error", func(t *testing.T) {
		h := reviewHost(t, planreview.Config{Options: []string{planreview.OptionAbandon}, Headless: planreview.HeadlessKeepPlanning})
		h.Detach()
		a, r := review(t, h, nil)
		if !r.IsError || !strings.Contains(r.Output, `headless policy is "keep-planning"`) || !e2etest.Active(a) {
			t.Fatalf("result %+v", r)
		}
	})
	t.Run("without the key an absent user fails the call as with no companion", func(t *testing.T) {
		h := reviewHost(t, planreview.Config{Options: []string{planreview.OptionAbandon}})
		h.Detach()
		a, r := review(t, h, nil)
		if !r.IsError || !e2etest.Active(a) || len(e2etest.Events(a, planreview.EventPolicy)) != 0 {
			t.Fatalf("result %+v", r)
		}
	})
	t.Run("an attached user answers in person even with a policy", func(t *testing.T) {
		h := reviewHost(t, planreview.Config{Options: []string{planreview.OptionAbandon}, Headless: planreview.HeadlessApprove})
		a, r := review(t, h, &scripted.Reply{Answers: []host.Answer{answer(e2etest.ReviewKeepPlanning, "")}})
		if !r.IsError || !e2etest.Active(a) || len(e2etest.Events(a, planreview.EventPolicy)) != 0 {
			t.Fatalf("result %+v", r)
		}
	})
	t.Run("a dismissal is not an absent user", func(t *testing.T) {
		h := reviewHost(t, planreview.Config{Options: []string{planreview.OptionAbandon}, Headless: planreview.HeadlessApprove})
		a, r := review(t, h, &scripted.Reply{Err: fmt.Errorf("p: %w", host.ErrDismissed)})
		if !r.IsError || !e2etest.Active(a) {
			t.Fatalf("result %+v", r)
		}
	})
}

func TestDecodeConfig(t *testing.T) {
	tests := []struct {
		name, give, want string // want: "" for success or an error substring
	}{
		{"all options", "options: [approve-with-comments, approve-and-clear, abandon]\nheadless: approve", ""},
		{"missing options", "headless: approve", "options: is required"},
		{"empty options", "options: []", "at least one"},
		{"unknown option", "options: [approve-later]", `must be one of`},
		{"repeated option", "options: [abandon, abandon]", "twice"},
		{"bad headless", "options: [abandon]\nheadless: true", "must be a string"},
		{"unknown headless", "options: [abandon]\nheadless: deny", "must be one of approve, keep-planning"},
		{"unknown key", "options: [abandon]\ncolor: red", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n yaml.Node
			if err := yaml.Unmarshal([]byte(tt.give), &n); err != nil {
				t.Fatal(err)
			}
			_, err := planreview.DecodeConfig(&n)
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("error %v; want %q", err, tt.want)
			}
		})
	}
}

func TestApproveAndClearNeedsACompactor(t *testing.T) {
	_, err := planreview.New(planreview.Params{Config: planreview.Config{Options: []string{planreview.OptionApproveAndClear}}})
	if !errors.Is(err, planreview.ErrNoCompactor) {
		t.Fatalf("New: %v", err)
	}
}

func TestThePayloadCheck(t *testing.T) {
	for give, ok := range map[string]bool{
		`{"policy":"headless","decision":"approve"}`:       true,
		`{"policy":"headless","decision":"keep-planning"}`: false,
		`{}`: false,
	} {
		err := planreview.CheckPayload(host.Event{Type: planreview.EventPolicy, Data: json.RawMessage(give)})
		if (err == nil) != ok {
			t.Errorf("%s: %v", give, err)
		}
	}
	if err := planreview.CheckPayload(host.Event{Type: "tool/call", Data: json.RawMessage(`{}`)}); err != nil {
		t.Errorf("an event of another type: %v, want it to pass", err)
	}
}
