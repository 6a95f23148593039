package planentry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/goleak"
	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/refhost/scripted"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func entryHost(t *testing.T) *e2etest.Host {
	t.Helper()
	return e2etest.New(t, fx.Supply(planentry.Config{}), planentry.Module)
}

func enter(goal, scope string) scripted.Step {
	in := map[string]string{"goal": goal}
	if scope != "" {
		in["scope"] = scope
	}
	return e2etest.Call("e", planentry.ToolName, in)
}

func answer(selected string, custom string) host.Answer {
	return host.Answer{QuestionID: planentry.QuestionID, Selected: []string{selected}, Custom: custom}
}

func TestConsentEntersPlanModeSilentlyAtTheNextRequest(t *testing.T) {
	h := entryHost(t)
	a := h.Agent()
	h.User.QueueAnswers(answer(planentry.OptionEnter, ""))
	h.Model.Add(enter("Add retries to the uploader", "internal/upload"), e2etest.Say("exploring"))
	h.Prompt(a, "add retries")
	r := e2etest.Result(t, a, "e")
	if r.IsError || !strings.Contains(r.Output, "plan mode starts with your next request") || r.Outcome != planentry.OutcomeEntered {
		t.Fatalf("result %+v", r)
	}
	req := h.User.Requests()[0]
	if req.Kind != host.AskConsent || req.Purpose != planentry.Purpose ||
		req.Questions[0].Options[0].Label != planentry.OptionEnter || req.Questions[0].Options[0].Role != host.RoleApprove ||
		req.Questions[0].Options[1].Role != host.RoleDecline ||
		!strings.Contains(req.Questions[0].Detail, "Add retries") || !strings.Contains(req.Questions[0].Detail, "internal/upload") {
		t.Fatalf("question %+v", req)
	}
	if !e2etest.Active(a) {
		t.Fatal("plan mode did not start")
	}
	goals := e2etest.Events(a, planentry.EventGoal)
	if len(goals) != 1 || !strings.Contains(string(goals[0].Data), "internal/upload") {
		t.Fatalf("plan/goal %v", goals)
	}
	for _, e := range e2etest.Events(a, host.TypeUserMessage) {
		if e.Source != nil && e.Source.Plugin == planmode.PluginName {
			t.Fatalf("a notice was recorded: %s", e.Data)
		}
	}
	reqs := h.Model.Requests()
	second := reqs[1]
	if !slices.Contains(second.Sections, planmode.SectionName) || !slices.Contains(second.Sections, planentry.SectionName) ||
		!strings.Contains(second.System, "Add retries to the uploader") {
		t.Fatalf("second request sections %v", second.Sections)
	}
	if slices.Contains(reqs[0].Sections, planentry.SectionName) {
		t.Fatal("plan:goal before plan mode")
	}
}

func TestAnythingButConsentDeclines(t *testing.T) {
	tests := []struct {
		name string
		give []host.Answer
		want string
	}{
		{"decline", []host.Answer{answer(planentry.OptionDecline, "")}, "declined"},
		{"enter with words", []host.Answer{answer(planentry.OptionEnter, "only for the API")}, "only for the API"},
		{"two answers", []host.Answer{answer(planentry.OptionEnter, ""), answer(planentry.OptionEnter, "")}, "declined"},
		{"no selection", []host.Answer{{QuestionID: planentry.QuestionID}}, "declined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := entryHost(t)
			a := h.Agent()
			h.User.QueueReply(scripted.Reply{Answers: tt.give})
			h.Model.Add(enter("goal", ""), e2etest.Say("ok"))
			h.Prompt(a, "go")
			r := e2etest.Result(t, a, "e")
			if r.IsError || !strings.Contains(r.Output, tt.want) || r.Outcome != planentry.OutcomeDeclined {
				t.Fatalf("result %+v", r)
			}
			if e2etest.Active(a) || len(e2etest.Events(a, planentry.EventGoal)) != 0 {
				t.Fatal("declined, yet plan mode started or a goal was logged")
			}
		})
	}
}

func TestChecksFailBeforeTheUserIsAsked(t *testing.T) {
	h := entryHost(t)
	cases := []struct {
		name  string
		input any
		plan  bool
		want  string
	}{
		{"already in plan mode", map[string]string{"goal": "g"}, true, "already in plan mode"},
		{"a blank goal", map[string]string{"goal": "  "}, false, "the goal is blank"},
		{"a missing goal", map[string]string{"scope": "x"}, false, `"goal" is missing`},
		{"a goal that is too long", map[string]string{"goal": strings.Repeat("g", 4097)}, false, "4097 bytes"},
		{"an unknown field", map[string]any{"goal": "g", "force": true}, false, `unknown field "force"`},
		{"a number as goal", map[string]any{"goal": 3}, false, `"goal" is not a string`},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			a := h.Agent()
			if tt.plan {
				h.EnterPlanMode(a)
			}
			before := len(h.User.Requests())
			h.Model.Add(e2etest.Call("e", planentry.ToolName, tt.input), e2etest.Say("ok"))
			h.Prompt(a, "go")
			if r := e2etest.Result(t, a, "e"); !r.IsError || !strings.Contains(r.Output, tt.want) || r.Outcome != planentry.OutcomeRefused {
				t.Fatalf("result %+v; want %q, refused", r, tt.want)
			}
			if len(h.User.Requests()) != before {
				t.Fatal("the user was asked")
			}
		})
	}
}

func TestItFailsClosedWithoutAUser(t *testing.T) {
	tests := []struct {
		name    string
		reply   error
		want    string
		outcome string
	}{
		{"no user attached", nil, "cannot be asked", planentry.OutcomeRefused},
		{"a delegated agent", fmt.Errorf("provider: %w", host.ErrDelegatedAgent), "delegated agent", planentry.OutcomeRefused},
		{"dismissed", fmt.Errorf("provider: %w", host.ErrDismissed), "wait for the user's message", planentry.OutcomeDismissed},
		{"another failure", errors.New("socket closed"), "socket closed", planentry.OutcomeFailed},
		{"the turn cancelled", context.Canceled, "context canceled", planentry.OutcomeFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := entryHost(t)
			a := h.Agent()
			if tt.reply == nil {
				h.Detach()
			} else {
				h.User.QueueReply(scripted.Reply{Err: tt.reply})
			}
			h.Model.Add(enter("goal", ""), e2etest.Say("ok"))
			h.Prompt(a, "go")
			if r := e2etest.Result(t, a, "e"); !r.IsError || !strings.Contains(r.Output, tt.want) || r.Outcome != tt.outcome {
				t.Fatalf("result %+v; want %q, outcome %s", r, tt.want, tt.outcome)
			}
			if e2etest.Active(a) {
				t.Fatal("plan mode started without consent")
			}
		})
	}
}

func TestStoppingThePluginFailsAnOpenQuestion(t *testing.T) {
	h := e2etest.New(t)
	pl, err := planentry.New(planentry.Params{
		Controller: h.Plan, Sections: h.Runtime, Tools: h.Runtime, Validators: h.Store, EventTypes: h.Runtime,
		Questions: h.Runtime.Questions(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := pl.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	a := h.Agent()
	release := h.User.Hold()
	defer release()
	h.User.QueueAnswers(answer(planentry.OptionEnter, ""))
	h.Model.Add(enter("goal", ""), e2etest.Say("ok"))
	if err := a.Steer(host.Message{Content: []host.Block{host.TextBlock("go")}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.User.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := pl.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := a.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if r := e2etest.Result(t, a, "e"); !r.IsError || !strings.Contains(r.Output, "reloaded") {
		t.Fatalf("result %+v", r)
	}
	if e2etest.Active(a) {
		t.Fatal("plan mode started")
	}
}

func TestConfigTakesNoKeys(t *testing.T) {
	for give, ok := range map[string]bool{"": true, "{}": true, "goal: x": false} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(give), &n); err != nil {
			t.Fatal(err)
		}
		if _, err := planentry.DecodeConfig(&n); (err == nil) != ok {
			t.Errorf("%q: %v", give, err)
		}
	}
}

func TestThePayloadCheck(t *testing.T) {
	tests := []struct {
		give string
		ok   bool
	}{
		{`{"goal":"g"}`, true},
		{`{"goal":"g","scope":"s"}`, true},
		{`{"goal":" "}`, false},
		{`{"scope":"s"}`, false},
		{`{"goal":1}`, false},
		{`"x"`, false},
	}
	for _, tt := range tests {
		err := planentry.CheckPayload(host.Event{Type: planentry.EventGoal, Data: json.RawMessage(tt.give)})
		if (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.give, err)
		}
	}
	if err := planentry.CheckPayload(host.Event{Type: "tool/call", Data: json.RawMessage(`"x"`)}); err != nil {
		t.Errorf("an event of another type: %v, want it to pass", err)
	}
}
