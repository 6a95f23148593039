package planask_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/goleak"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func askHost(t *testing.T, cfg planask.Config) *e2etest.Host {
	t.Helper()
	return e2etest.New(t, fx.Supply(cfg), planask.Module)
}

// planning returns a host with cfg and an agent in plan mode on it.
func planning(t *testing.T, cfg planask.Config) (*e2etest.Host, *refhost.Agent) {
	t.Helper()
	h := askHost(t, cfg)
	a := h.Agent()
	h.EnterPlanMode(a)
	return h, a
}

// storage is a well-formed question: storage engine, single choice.
var storage = map[string]any{
	"header": "Storage", "question": "Where should the data live?",
	"options": []map[string]string{
		{"label": "PostgreSQL", "description": "A server database."},
		{"label": "SQLite", "description": "A file next to the binary."},
	},
}

// features is a multi-select question.
var features = map[string]any{
	"header": "Features", "question": "Which extras?", "multiSelect": true,
	"options": []map[string]string{
		{"label": "Export", "description": "CSV export."},
		{"label": "Search", "description": "Full-text search."},
		{"label": "Audit", "description": "An audit log."},
	},
}

func ask(qs ...any) scripted.Step {
	return e2etest.Call("k", planask.ToolName, map[string]any{"questions": qs})
}

func result(t *testing.T, a host.Agent) planask.Result {
	t.Helper()
	r := e2etest.Result(t, a, "k")
	if r.IsError {
		t.Fatalf("error result: %s", r.Output)
	}
	var out planask.Result
	if err := json.Unmarshal([]byte(r.Output), &out); err != nil {
		t.Fatalf("result %q: %v", r.Output, err)
	}
	return out
}

func logged(t *testing.T, a host.Agent) planask.Ask {
	t.Helper()
	asks := planask.Asks(a.Session().Events())
	if len(asks) != 1 || asks[0].Answer == nil {
		t.Fatalf("asks %+v; log %s", asks, e2etest.Types(a))
	}
	return asks[0]
}

func TestTheUserAnswersAndTheModelGetsJSONAndTheLogBoth(t *testing.T) {
	h, a := planning(t, planask.DefaultConfig())
	h.User.QueueAnswers(
		host.Answer{QuestionID: "q1", Selected: []string{"SQLite"}},
		host.Answer{QuestionID: "q2", Selected: []string{"Export", "Audit"}, Custom: "  and dark mode  "},
	)
	h.Model.Add(ask(storage, features), e2etest.Say("planning"))
	h.Prompt(a, "build it")

	req := h.User.Requests()[0]
	if req.Kind != host.AskClarify || req.Purpose != planask.Purpose {
		t.Fatalf("request kind %q, purpose %q", req.Kind, req.Purpose)
	}
	for _, o := range req.Questions[0].Options {
		if o.Role != host.RoleAnswer {
			t.Fatalf("option %q has role %q; a clarifying question's options are answers", o.Label, o.Role)
		}
	}
	if len(req.Questions) != 2 || req.Questions[0].MultiSelect || !req.Questions[1].MultiSelect ||
		req.Questions[0].Header != "Storage" || len(req.Questions[1].Options) != 3 {
		t.Fatalf("questions %+v", req.Questions)
	}
	got := result(t, a)
	if got.Outcome != planask.OutcomeAnswered || !strings.Contains(got.Message, "answered") ||
		strings.Join(got.Answers[0].Selected, ",") != "SQLite" || strings.Join(got.Answers[1].Selected, ",") != "Export,Audit" ||
		got.Answers[1].Other != "and dark mode" || got.Answers[0].Question != "Where should the data live?" {
		t.Fatalf("result %+v", got)
	}
	l := logged(t, a)
	if l.Questions.CallID != "k" || len(l.Questions.Questions) != 2 || l.Answer.Outcome != planask.OutcomeAnswered ||
		l.Answer.Answers[1].Other != "and dark mode" {
		t.Fatalf("logged %+v %+v", l.Questions, l.Answer)
	}
	// The answer is logged after the question and before the result.
	types := e2etest.Types(a)
	if i, j := strings.Index(types, planask.EventAsk), strings.Index(types, planask.EventAnswer); i < 0 || j < i ||
		strings.Index(types, host.TypeToolResult) < j {
		t.Fatalf("order %s", types)
	}
}

func TestSkippedAndDismissedQuestionsDecline(t *testing.T) {
	tests := []struct {
		name    string
		reply   scripted.Reply
		outcome string
		skipped []bool
	}{
		{"dismissed", scripted.Reply{Err: host.ErrDismissed}, planask.OutcomeDeclined, []bool{true, true}},
		{"no answers", scripted.Reply{}, planask.OutcomeDeclined, []bool{true, true}},
		{"empty answers", scripted.Reply{Answers: []host.Answer{{QuestionID: "q1", Custom: "  "}, {QuestionID: "q2"}}}, planask.OutcomeDeclined, []bool{true, true}},
		{"one of two", scripted.Reply{Answers: []host.Answer{{QuestionID: "q2", Custom: "only search"}}}, planask.OutcomeAnswered, []bool{true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, a := planning(t, planask.DefaultConfig())
			h.User.QueueReply(tt.reply)
			h.Model.Add(ask(storage, features), e2etest.Say("ok"))
			h.Prompt(a, "go")
			got := result(t, a)
			if got.Outcome != tt.outcome || len(got.Answers) != 2 {
				t.Fatalf("result %+v", got)
			}
			for i, s := range tt.skipped {
				if got.Answers[i].Skipped != s {
					t.Fatalf("answer %d skipped=%v: %+v", i, got.Answers[i].Skipped, got)
				}
			}
			if tt.outcome == planask.OutcomeDeclined && !strings.Contains(got.Message, "State your assumptions") {
				t.Fatalf("message %q", got.Message)
			}
			if l := logged(t, a); l.Answer.Outcome != tt.outcome {
				t.Fatalf("logged %+v", l.Answer)
			}
		})
	}
}

func TestAnswersThatDoNotFitTheQuestionsAreRefused(t *testing.T) {
	tests := []struct {
		name string
		give []host.Answer
	}{
		{"an unknown label", []host.Answer{{QuestionID: "q1", Selected: []string{"MySQL"}}}},
		{"two labels for one choice", []host.Answer{{QuestionID: "q1", Selected: []string{"SQLite", "PostgreSQL"}}}},
		{"a label twice", []host.Answer{{QuestionID: "q2", Selected: []string{"Export", "Export"}}}},
		{"an unknown question", []host.Answer{{QuestionID: "q9", Custom: "x"}}},
		{"two answers to one question", []host.Answer{{QuestionID: "q1", Custom: "a"}, {QuestionID: "q1", Custom: "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, a := planning(t, planask.DefaultConfig())
			h.User.QueueReply(scripted.Reply{Answers: tt.give})
			h.Model.Add(ask(storage, features), e2etest.Say("ok"))
			h.Prompt(a, "go")
			r := e2etest.Result(t, a, "k")
			if !r.IsError || !strings.Contains(r.Output, "could not be read") {
				t.Fatalf("result %+v", r)
			}
			if l := logged(t, a); l.Answer.Outcome != planask.OutcomeFailed || l.Answer.Error == "" || len(l.Answer.Answers) != 0 {
				t.Fatalf("logged %+v", l.Answer)
			}
		})
	}
}

func TestHeadlessPolicyAnswersForAnAbsentUserAndSaysSo(t *testing.T) {
	tests := []struct {
		policy   string
		selected string
		message  string
	}{
		{planask.HeadlessDecline, "", "nobody answered"},
		{planask.HeadlessFirstOption, "PostgreSQL", "not the user's choices"},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			cfg := planask.DefaultConfig()
			cfg.Headless = tt.policy
			h := askHost(t, cfg)
			h.Detach()
			a := h.Agent()
			h.EnterPlanMode(a)
			h.Model.Add(ask(storage), e2etest.Say("ok"))
			h.Prompt(a, "go")
			got := result(t, a)
			if got.Outcome != planask.OutcomePolicy || got.Policy != tt.policy || !strings.Contains(got.Message, tt.message) ||
				strings.Join(got.Answers[0].Selected, ",") != tt.selected || got.Answers[0].Skipped != (tt.selected == "") {
				t.Fatalf("result %+v", got)
			}
			if l := logged(t, a); l.Answer.Outcome != planask.OutcomePolicy || l.Answer.Policy != tt.policy {
				t.Fatalf("logged %+v", l.Answer)
			}
		})
	}
}

func TestOutsidePlanModeTheGuardRefusesUnlessConfigured(t *testing.T) {
	h := askHost(t, planask.DefaultConfig())
	a := h.Agent()
	h.Model.Add(ask(storage), e2etest.Say("ok"))
	h.Prompt(a, "go")
	r := e2etest.Result(t, a, "k")
	if !r.IsError || !strings.Contains(r.Output, "only in plan mode") || len(h.User.Requests()) != 0 ||
		len(e2etest.Events(a, planask.EventAsk)) != 0 {
		t.Fatalf("result %+v, %d questions put", r, len(h.User.Requests()))
	}
	defs := h.Runtime.Assemble(host.AssembleContext{Agent: a}).Tools
	found := false
	for _, d := range defs {
		found = found || d.Name == planask.ToolName
	}
	if !found {
		t.Fatal("ask_user is not in the tool list outside plan mode")
	}

	cfg := planask.DefaultConfig()
	cfg.OutsidePlanMode = true
	h2 := askHost(t, cfg)
	b := h2.Agent()
	h2.User.QueueAnswers(host.Answer{QuestionID: "q1", Selected: []string{"SQLite"}})
	h2.Model.Add(ask(storage), e2etest.Say("ok"))
	h2.Prompt(b, "go")
	if got := result(t, b); got.Outcome != planask.OutcomeAnswered {
		t.Fatalf("result %+v", got)
	}
}

func TestTheToolRefusesItselfOnAHostWithoutGuards(t *testing.T) {
	h := e2etest.New(t, fx.Supply(planask.DefaultConfig()), fx.Decorate(func(host.ToolGuards) host.ToolGuards { return nil }), planask.Module)
	a := h.Agent()
	h.Model.Add(ask(storage), e2etest.Say("ok"))
	h.Prompt(a, "go")
	r := e2etest.Result(t, a, "k")
	if !r.IsError || !strings.Contains(r.Output, "only in plan mode") || len(h.User.Requests()) != 0 {
		t.Fatalf("result %+v", r)
	}
}

func TestTheTurnLimitCountsEveryCallOfTheTurn(t *testing.T) {
	cfg := planask.DefaultConfig()
	cfg.MaxQuestionsPerTurn = 3
	h, a := planning(t, cfg)
	for range 3 {
		h.User.QueueReply(scripted.Reply{})
	}
	h.Model.Add(
		ask(storage, features),
		e2etest.Call("k2", planask.ToolName, map[string]any{"questions": []any{storage, features}}),
		e2etest.Call("k3", planask.ToolName, map[string]any{"questions": []any{storage}}),
		e2etest.Say("ok"),
	)
	h.Prompt(a, "go")
	if r := e2etest.Result(t, a, "k2"); !r.IsError || !strings.Contains(r.Output, "already asked 2 questions") {
		t.Fatalf("k2 %+v", r)
	}
	if r := e2etest.Result(t, a, "k3"); r.IsError {
		t.Fatalf("k3 %+v", r)
	}
	// A new turn starts counting again.
	h.Model.Add(e2etest.Call("k4", planask.ToolName, map[string]any{"questions": []any{storage, features}}), e2etest.Say("ok"))
	h.Prompt(a, "again")
	if r := e2etest.Result(t, a, "k4"); r.IsError {
		t.Fatalf("k4 %+v", r)
	}
}

func TestBadCallsAreToolErrorsAndAskNothing(t *testing.T) {
	opt := func(label string) map[string]string { return map[string]string{"label": label, "description": "d"} }
	q := func(mod func(map[string]any)) map[string]any {
		m := map[string]any{"header": "H", "question": "Q?", "options": []map[string]string{opt("A"), opt("B")}}
		mod(m)
		return m
	}
	tests := []struct {
		name  string
		input any
		want  string
	}{
		{"not an object", []int{1}, "not a JSON object"},
		{"unknown top field", map[string]any{"questions": []any{storage}, "x": 1}, `unknown fields "x"`},
		{"no questions", map[string]any{"questions": []any{}}, "is empty"},
		{"five questions", map[string]any{"questions": []any{storage, storage, storage, storage, storage}}, "5 questions, more than the 4"},
		{"unknown question field", map[string]any{"questions": []any{q(func(m map[string]any) { m["id"] = "x" })}}, `question 1: unknown fields "id"`},
		{"blank question", map[string]any{"questions": []any{q(func(m map[string]any) { m["question"] = " " })}}, `"question" is blank`},
		{"long header", map[string]any{"questions": []any{q(func(m map[string]any) { m["header"] = strings.Repeat("h", 41) })}}, `"header" is 41 bytes`},
		{"one option", map[string]any{"questions": []any{q(func(m map[string]any) { m["options"] = []map[string]string{opt("A")} })}}, "1 options; a question offers 2 to 6"},
		{"duplicate labels", map[string]any{"questions": []any{q(func(m map[string]any) { m["options"] = []map[string]string{opt("Fast"), opt("fast")} })}}, `option 2 has the label "fast" of option 1`},
		{"other label", map[string]any{"questions": []any{q(func(m map[string]any) { m["options"] = []map[string]string{opt("A"), opt("other")} })}}, `"Other" option`},
		{"escape in label", map[string]any{"questions": []any{q(func(m map[string]any) { m["options"] = []map[string]string{opt("A"), opt("B\x1b[2J")} })}}, `"label" holds control characters`},
		{"multiSelect not bool", map[string]any{"questions": []any{q(func(m map[string]any) { m["multiSelect"] = "yes" })}}, `"multiSelect" is not true or false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, a := planning(t, planask.DefaultConfig())
			h.Model.Add(e2etest.Call("k", planask.ToolName, tt.input), e2etest.Say("ok"))
			h.Prompt(a, "go")
			r := e2etest.Result(t, a, "k")
			if !r.IsError || !strings.Contains(r.Output, tt.want) || len(h.User.Requests()) != 0 || len(e2etest.Events(a, planask.EventAsk)) != 0 {
				t.Fatalf("result %+v", r)
			}
		})
	}
}

func TestAResumedSessionShowsTheQuestionsAndAnswers(t *testing.T) {
	h, a := planning(t, planask.DefaultConfig())
	h.User.QueueAnswers(host.Answer{QuestionID: "q1", Custom: "Both, behind a flag"})
	h.Model.Add(ask(storage), e2etest.Say("ok"))
	h.Prompt(a, "go")
	resumed, err := h.Store.Open(a.Session().ID())
	if err != nil {
		t.Fatal(err)
	}
	asks := planask.Asks(resumed.Events())
	if len(asks) != 1 || asks[0].Answer == nil || asks[0].Answer.Answers[0].Other != "Both, behind a flag" {
		t.Fatalf("asks %+v", asks)
	}
}

func TestCheckPayloadRefusesMalformedEvents(t *testing.T) {
	tests := []struct {
		typ, data string
		ok        bool
	}{
		{planask.EventAsk, `{"callId":"c","questions":[{"id":"q1","header":"H","question":"Q","options":[{"label":"A","description":"a"},{"label":"B","description":"b"}]}]}`, true},
		{planask.EventAsk, `{"callId":"c","questions":[]}`, false},
		{planask.EventAsk, `{"callId":"","questions":[{"id":"q1","header":"H","question":"Q","options":[{"label":"A","description":"a"},{"label":"B","description":"b"}]}]}`, false},
		{planask.EventAsk, `{"callId":"c","questions":[{"id":"q7","header":"H","question":"Q","options":[{"label":"A","description":"a"},{"label":"B","description":"b"}]}]}`, false},
		{planask.EventAnswer, `{"callId":"c","outcome":"answered","answers":[{"id":"q1","selected":["A"]}]}`, true},
		{planask.EventAnswer, `{"callId":"c","outcome":"policy"}`, false},
		{planask.EventAnswer, `{"callId":"c","outcome":"maybe"}`, false},
		{planask.EventAnswer, `{"callId":"c","outcome":"declined","answers":[{"skipped":true}]}`, false},
		{"other/type", `not json`, true},
	}
	for _, tt := range tests {
		err := planask.CheckPayload(host.Event{Type: tt.typ, Seq: 3, Data: json.RawMessage(tt.data)})
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, planask.ErrBadPayload)) {
			t.Errorf("%s %s: %v", tt.typ, tt.data, err)
		}
	}
}

func TestNewNeedsPlanModeAndAValidConfig(t *testing.T) {
	if _, err := planask.New(planask.Params{Config: planask.DefaultConfig()}); !errors.Is(err, planask.ErrNeedsPlanMode) {
		t.Fatalf("no controller: %v", err)
	}
	if _, err := planask.New(planask.Params{Config: planask.Config{}}); err == nil || !strings.Contains(err.Error(), "headless") ||
		!strings.Contains(err.Error(), "max_questions_per_turn") {
		t.Fatalf("zero config: %v", err)
	}
}

var _ refhost.Provider = (*scripted.Provider)(nil)

func TestAForkKeepsTheQuestionsAndAnswersOfItsPrefix(t *testing.T) {
	h, a := planning(t, planask.DefaultConfig())
	h.User.QueueAnswers(host.Answer{QuestionID: "q1", Selected: []string{"SQLite"}})
	h.Model.Add(ask(storage), e2etest.Say("ok"))
	h.Prompt(a, "go")
	fork, err := a.Session().Fork(a.Session().Len())
	if err != nil {
		t.Fatal(err)
	}
	asks := planask.Asks(fork.Events())
	if len(asks) != 1 || asks[0].Answer == nil || asks[0].Answer.Answers[0].Selected[0] != "SQLite" {
		t.Fatalf("asks in the fork %+v", asks)
	}
	// The fork's next turn counts its questions afresh and asks again.
	b := h.AgentOn(fork)
	h.User.QueueAnswers(host.Answer{QuestionID: "q1", Selected: []string{"PostgreSQL"}})
	h.Model.Add(e2etest.Call("k2", planask.ToolName, map[string]any{"questions": []any{storage}}), e2etest.Say("ok"))
	h.Prompt(b, "again")
	if got := planask.Asks(fork.Events()); len(got) != 2 || got[1].Answer.Answers[0].Selected[0] != "PostgreSQL" {
		t.Fatalf("asks after the fork's turn %+v", got)
	}
}

func TestChannelFailuresAreToolErrorsAndLogged(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"a delegated agent", host.ErrDelegatedAgent, "a delegated agent cannot ask the user"},
		{"an aborted question", host.ErrAborted, "could not be put to the user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, a := planning(t, planask.DefaultConfig())
			h.User.QueueReply(scripted.Reply{Err: tt.err})
			h.Model.Add(ask(storage), e2etest.Say("ok"))
			h.Prompt(a, "go")
			if r := e2etest.Result(t, a, "k"); !r.IsError || !strings.Contains(r.Output, tt.want) {
				t.Fatalf("result %+v", r)
			}
			if l := logged(t, a); l.Answer.Outcome != planask.OutcomeFailed || !strings.Contains(l.Answer.Error, tt.want) {
				t.Fatalf("logged %+v", l.Answer)
			}
		})
	}
}

func TestStoppingThePluginFailsOpenQuestions(t *testing.T) {
	h := e2etest.New(t)
	pl, err := planask.New(planask.Params{
		Config: planask.DefaultConfig(), Controller: h.Plan, Tools: h.Runtime, Validators: h.Store, EventTypes: h.Runtime,
		Guards: h.Runtime, Questions: h.Runtime.Questions(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := pl.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	a := h.Agent()
	h.EnterPlanMode(a)
	release := h.User.Hold()
	defer release()
	h.Model.Add(ask(storage), e2etest.Say("ok"))
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
	if r := e2etest.Result(t, a, "k"); !r.IsError || !strings.Contains(r.Output, "reloaded") {
		t.Fatalf("result %+v", r)
	}
	if l := logged(t, a); l.Answer.Outcome != planask.OutcomeFailed {
		t.Fatalf("logged %+v", l.Answer)
	}
}
