package refhost_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

func TestToolLoop(t *testing.T) {
	f := newFixture(t,
		scripted.Step{Text: "looking", ToolCalls: []host.ToolCall{call("c1", "echo", `{"text":"one"}`), call("c2", "echo", `{"fail":"boom"}`)}},
		scripted.Step{ToolCalls: []host.ToolCall{call("c3", "missing", `{}`)}},
		scripted.Step{Text: "done"},
	)
	must[func()](t)(f.rt.AddTool(echoTool{name: "echo"}))
	a := f.agent()
	f.steer(a, "hi")

	want := []string{
		host.TypeTurnStart,
		host.TypeStepStart, host.TypeUserMessage, host.TypeRequestHeader, host.TypeAssistantMessage,
		host.TypeToolCall, host.TypeToolResult, host.TypeToolCall, host.TypeToolResult, host.TypeStepEnd,
		host.TypeStepStart, host.TypeAssistantMessage, host.TypeToolCall, host.TypeToolResult, host.TypeStepEnd,
		host.TypeStepStart, host.TypeAssistantMessage, host.TypeStepEnd,
		host.TypeTurnEnd,
	}
	if got := types(a.Session()); !slices.Equal(got, want) {
		t.Fatalf("log:\n got %v\nwant %v", got, want)
	}
	results := payloads[host.ToolResult](t, a.Session(), host.TypeToolResult)
	wantResults := []host.ToolResult{
		{CallID: "c1", Name: "echo", Output: "one"},
		{CallID: "c2", Name: "echo", Output: refhost.ToolErrorPrefix + "boom", IsError: true},
		{CallID: "c3", Name: "missing", Output: `Error: unknown tool "missing"; use only the tools you were given`, IsError: true},
	}
	if !slices.Equal(results, wantResults) {
		t.Errorf("results:\n got %+v\nwant %+v", results, wantResults)
	}
	if got := lastTurnEnd(t, a.Session()); got != (host.TurnEnd{Turn: 1, Reason: host.TurnCompleted}) {
		t.Errorf("turn end = %+v", got)
	}
	starts := payloads[host.StepStart](t, a.Session(), host.TypeStepStart)
	if want := []host.StepStart{{Turn: 1, Step: 1, Attempt: 1}, {Turn: 1, Step: 2, Attempt: 1}, {Turn: 1, Step: 3, Attempt: 1}}; !slices.Equal(starts, want) {
		t.Errorf("step starts = %v, want %v", starts, want)
	}
	reqs := f.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("model got %d requests, want 3", len(reqs))
	}
	last := reqs[2].Messages
	roles := make([]refhost.Role, len(last))
	for i, m := range last {
		roles[i] = m.Role
	}
	wantRoles := []refhost.Role{refhost.RoleUser, refhost.RoleAssistant, refhost.RoleTool, refhost.RoleTool, refhost.RoleAssistant, refhost.RoleTool}
	if !slices.Equal(roles, wantRoles) {
		t.Errorf("third request roles = %v, want %v", roles, wantRoles)
	}
	if a.Status() != host.StatusIdle || a.Turn() != 1 {
		t.Errorf("status %s turn %d, want idle after turn 1", a.Status(), a.Turn())
	}
}

func TestPreStepReject(t *testing.T) {
	f := newFixture(t, scripted.Step{Text: "ok"})
	unregister := must[func()](t)(f.rt.AddPreStep("gate", func(_ context.Context, _ host.Step, _ host.PreStepNext) host.Decision {
		return host.Reject("not now")
	}, false))
	a := f.agent()
	f.steer(a, "first")

	if got, want := types(a.Session()), []string{host.TypeTurnStart, host.TypeTurnEnd}; !slices.Equal(got, want) {
		t.Fatalf("log = %v, want %v", got, want)
	}
	if got := lastTurnEnd(t, a.Session()); got != (host.TurnEnd{Turn: 1, Reason: host.TurnBlocked, Error: "not now"}) {
		t.Errorf("turn end = %+v", got)
	}
	if p := a.Pending(); len(p) != 1 || p[0].Content[0].Text != "first" {
		t.Fatalf("pending = %+v, want the rejected message", p)
	}
	if f.model.Calls() != 0 {
		t.Errorf("model called %d times after a rejection", f.model.Calls())
	}

	unregister()
	f.steer(a, "second")
	msgs := payloads[host.UserMessage](t, a.Session(), host.TypeUserMessage)
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m.Content[0].Text)
	}
	if want := []string{"first", "second"}; !slices.Equal(texts, want) {
		t.Errorf("logged messages = %v, want %v", texts, want)
	}
	if got := lastTurnEnd(t, a.Session()); got.Reason != host.TurnCompleted || got.Turn != 2 {
		t.Errorf("turn end = %+v, want turn 2 completed", got)
	}
}

func TestPreStepOrder(t *testing.T) {
	f := newFixture(t, scripted.Step{Text: "ok"})
	var mu sync.Mutex
	var order []string
	listener := func(name string) host.PreStepListener {
		return func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			d := next(ctx, s)
			mu.Lock()
			order = append(order, "/"+name)
			mu.Unlock()
			return d
		}
	}
	regs := []struct {
		name    string
		prepend bool
	}{{"a", false}, {"b", true}, {"c", false}, {"d", true}}
	for _, r := range regs {
		must[func()](t)(f.rt.AddPreStep(r.name, listener(r.name), r.prepend))
	}
	if _, err := f.rt.AddPreStep("a", listener("a"), true); !errors.Is(err, host.ErrDuplicate) {
		t.Errorf("second %q: err = %v, want ErrDuplicate", "a", err)
	}
	a := f.agent()
	f.steer(a, "hi")
	want := []string{"d", "b", "a", "c", "/c", "/a", "/b", "/d"}
	if !slices.Equal(order, want) {
		t.Errorf("order = %v, want %v", order, want)
	}
}

func TestPreStepChangesMessages(t *testing.T) {
	f := newFixture(t, scripted.Step{Text: "ok"})
	notice := &host.Source{Kind: host.SourcePlugin, Plugin: "test", Form: "notice"}
	must[func()](t)(f.rt.AddPreStep("notice", func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
		d := next(ctx, s)
		if d.Accepted {
			d.Messages = append(d.Messages, host.Message{Content: []host.Block{host.TextBlock("notice")}, Source: notice})
		}
		return d
	}, true))
	a := f.agent()
	f.steer(a, "hi")
	var sources []*host.Source
	for _, e := range a.Session().Events().Slice() {
		if e.Type == host.TypeUserMessage {
			sources = append(sources, e.Source)
		}
	}
	if len(sources) != 2 || sources[0] != nil || sources[1] == nil || *sources[1] != *notice {
		t.Errorf("user/message sources = %+v, want [nil %+v]", sources, notice)
	}
	req := f.model.Requests()[0]
	if n := len(req.Messages); n != 2 {
		t.Errorf("request has %d messages, want the user's and the notice", n)
	}
}

func TestRetry(t *testing.T) {
	f := newFixture(t, scripted.Step{Err: errors.New("overloaded")}, scripted.Step{Text: "ok"})
	var attempts []int
	must[func()](t)(f.rt.AddPreStep("spy", func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
		attempts = append(attempts, s.Attempt)
		return next(ctx, s)
	}, false))
	must[func()](t)(f.rt.AddSection(host.Section{Name: "base", Text: func(host.AssembleContext) string { return "base" }}))
	var seen []refhost.RequestError
	must[func()](t)(f.rt.AddRequestErrorListener("settle", func(_ context.Context, e refhost.RequestError) bool {
		seen = append(seen, e)
		// A change made while settling must show up in the retried request.
		_, err := f.rt.AddSection(host.Section{Name: "recovered", Order: 1, Text: func(host.AssembleContext) string { return "recovered" }})
		return err == nil
	}))
	a := f.agent()
	f.steer(a, "hi")

	if want := []int{1, 2}; !slices.Equal(attempts, want) {
		t.Errorf("pre-step attempts = %v, want %v", attempts, want)
	}
	if len(seen) != 1 || seen[0].Attempt != 1 || seen[0].Err.Error() != "overloaded" || seen[0].MaxAttempts != refhost.DefaultMaxAttempts {
		t.Errorf("request errors = %+v", seen)
	}
	reqs := f.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if reqs[0].System != "base" || reqs[1].System != "base\n\nrecovered" {
		t.Errorf("systems = %q, %q: the retry must re-derive the request", reqs[0].System, reqs[1].System)
	}
	ends := payloads[host.StepEnd](t, a.Session(), host.TypeStepEnd)
	if want := []host.StepEnd{{Turn: 1, Step: 1, Attempt: 1, Error: "overloaded"}, {Turn: 1, Step: 1, Attempt: 2}}; !slices.Equal(ends, want) {
		t.Errorf("step ends = %+v, want %+v", ends, want)
	}
	headers := payloads[host.RequestHeader](t, a.Session(), host.TypeRequestHeader)
	if len(headers) != 2 || headers[0].Reason != host.HeaderInitial || headers[1].Reason != host.HeaderChange {
		t.Errorf("headers = %+v, want initial then change", headers)
	}
	if got := lastTurnEnd(t, a.Session()); got.Reason != host.TurnCompleted {
		t.Errorf("turn end = %+v", got)
	}
}

func TestRetryBounds(t *testing.T) {
	tests := []struct {
		name      string
		retry     bool
		max       int
		wantCalls int
		wantErr   string
	}{
		{name: "no listener asks for a retry", retry: false, max: 3, wantCalls: 1, wantErr: "down"},
		{name: "retries stop at max attempts", retry: true, max: 2, wantCalls: 2, wantErr: refhost.ErrAttemptsExhausted.Error() + " (2): down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixtureOpts(t, refhost.Options{MaxAttempts: tt.max},
				scripted.Step{Err: errors.New("down")}, scripted.Step{Err: errors.New("down")}, scripted.Step{Err: errors.New("down")})
			must[func()](t)(f.rt.AddRequestErrorListener("l", func(context.Context, refhost.RequestError) bool { return tt.retry }))
			a := f.agent()
			f.steer(a, "hi")
			if got := f.model.Calls(); got != tt.wantCalls {
				t.Errorf("calls = %d, want %d", got, tt.wantCalls)
			}
			if got := lastTurnEnd(t, a.Session()); got.Reason != host.TurnError || got.Error != tt.wantErr {
				t.Errorf("turn end = %+v, want error %q", got, tt.wantErr)
			}
		})
	}
}

func TestStepBound(t *testing.T) {
	tests := []struct {
		name      string
		maxSteps  int
		wantCalls int
		wantEnd   host.TurnEnd
	}{
		{name: "a model calling tools for ever stops at max steps", maxSteps: 3, wantCalls: 3,
			wantEnd: host.TurnEnd{Turn: 1, Reason: host.TurnStepsExhausted, Error: refhost.ErrStepsExhausted.Error() + " (3)"}},
		{name: "a turn within the bound completes", maxSteps: 5, wantCalls: 5,
			wantEnd: host.TurnEnd{Turn: 1, Reason: host.TurnCompleted}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := make([]scripted.Step, 0, 5)
			for i := range 4 {
				steps = append(steps, scripted.Step{ToolCalls: []host.ToolCall{call(fmt.Sprintf("c%d", i), "echo", `{"text":"again"}`)}})
			}
			steps = append(steps, scripted.Step{Text: "done"})
			f := newFixtureOpts(t, refhost.Options{MaxSteps: tt.maxSteps}, steps...)
			must[func()](t)(f.rt.AddTool(echoTool{name: "echo"}))
			a := f.agent()
			f.steer(a, "loop")
			if got := f.model.Calls(); got != tt.wantCalls {
				t.Errorf("model calls = %d, want %d", got, tt.wantCalls)
			}
			if got := lastTurnEnd(t, a.Session()); got != tt.wantEnd {
				t.Errorf("turn end = %+v, want %+v", got, tt.wantEnd)
			}
		})
	}
}

func TestNegativeMaxStepsIsRefused(t *testing.T) {
	_, err := refhost.New(refhost.Options{Model: scripted.NewModel(), MaxSteps: -1})
	if !errors.Is(err, refhost.ErrBadRegistration) {
		t.Fatalf("New with MaxSteps -1: err = %v, want ErrBadRegistration", err)
	}
}

// TestReasoningKeptAndSentBack protects the reasoning text of thinking
// models: it is kept in the assistant message and is part of the next
// request's transcript, as providers that require it back expect.
func TestReasoningKeptAndSentBack(t *testing.T) {
	f := newFixture(t,
		scripted.Step{Reasoning: "Check with echo.", ToolCalls: []host.ToolCall{call("c1", "echo", `{"text":"one"}`)}},
		scripted.Step{Text: "done"},
	)
	must[func()](t)(f.rt.AddTool(echoTool{name: "echo"}))
	a := f.agent()
	f.steer(a, "hi")

	msgs := payloads[host.AssistantMessage](t, a.Session(), host.TypeAssistantMessage)
	if len(msgs) != 2 || msgs[0].Reasoning != "Check with echo." || msgs[1].Reasoning != "" {
		t.Fatalf("assistant messages = %+v", msgs)
	}
	reqs := f.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model got %d requests, want 2", len(reqs))
	}
	var got []string
	for _, m := range reqs[1].Messages {
		if m.Role == refhost.RoleAssistant {
			got = append(got, m.Reasoning)
		}
	}
	if !slices.Equal(got, []string{"Check with echo."}) {
		t.Errorf("second request's assistant reasoning = %q", got)
	}
}
