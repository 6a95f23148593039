package refhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

func TestCancelDuringModelCall(t *testing.T) {
	f := newFixture(t, scripted.Step{Block: true}, scripted.Step{Text: "ok"})
	a := f.agent()
	send(t, a, "hi")
	if err := f.model.WaitCalls(ctxTimeout(t), 1); err != nil {
		t.Fatal(err)
	}
	a.Cancel()
	waitIdle(t, a)
	want := []string{host.TypeTurnStart, host.TypeStepStart, host.TypeUserMessage, host.TypeRequestHeader, host.TypeStepEnd, host.TypeTurnEnd}
	if got := types(a.Session()); !slices.Equal(got, want) {
		t.Fatalf("log = %v, want %v", got, want)
	}
	if got := payloads[host.StepEnd](t, a.Session(), host.TypeStepEnd)[0].Error; got != refhost.TextStepCancelled {
		t.Errorf("step end error = %q", got)
	}
	if got := lastTurnEnd(t, a.Session()); got.Reason != host.TurnCancelled {
		t.Errorf("turn end = %+v", got)
	}
	f.steer(a, "again")
	if got := lastTurnEnd(t, a.Session()); got != (host.TurnEnd{Turn: 2, Reason: host.TurnCompleted}) {
		t.Errorf("after cancel: turn end = %+v", got)
	}
}

func TestCancelDuringTool(t *testing.T) {
	f := newFixture(t, scripted.Step{ToolCalls: []host.ToolCall{call("c1", "wait", `{}`), call("c2", "echo", `{"text":"x"}`)}})
	started := make(chan struct{})
	var toolErr error
	must[func()](t)(f.rt.AddTool(funcTool{name: "wait", fn: func(ctx context.Context, cc host.CallContext, _ json.RawMessage) (string, error) {
		close(started)
		<-ctx.Done()
		toolErr = ctx.Err()
		return "", toolErr
	}}))
	must[func()](t)(f.rt.AddTool(echoTool{name: "echo"}))
	a := f.agent()
	send(t, a, "hi")
	<-started
	a.Cancel()
	waitIdle(t, a)
	if !errors.Is(toolErr, context.Canceled) {
		t.Errorf("tool ctx err = %v, want Canceled", toolErr)
	}
	results := payloads[host.ToolResult](t, a.Session(), host.TypeToolResult)
	want := []host.ToolResult{
		{CallID: "c1", Name: "wait", Output: refhost.ToolErrorPrefix + context.Canceled.Error(), IsError: true},
		{CallID: "c2", Name: "echo", Output: refhost.TextToolCancelled, IsError: true},
	}
	if !slices.Equal(results, want) {
		t.Errorf("results = %+v, want %+v", results, want)
	}
	calls := payloads[host.ToolCall](t, a.Session(), host.TypeToolCall)
	if len(calls) != 2 {
		t.Errorf("%d tool/call events, want one per result", len(calls))
	}
	if got := lastTurnEnd(t, a.Session()); got.Reason != host.TurnCancelled {
		t.Errorf("turn end = %+v", got)
	}
	if f.model.Calls() != 1 {
		t.Errorf("model called %d times, want no continuation after cancel", f.model.Calls())
	}
}

func TestCancelDuringPreStep(t *testing.T) {
	f := newFixture(t, scripted.Step{Text: "ok"})
	entered := make(chan struct{})
	unregister := must[func()](t)(f.rt.AddPreStep("slow", func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
		close(entered)
		<-ctx.Done()
		return next(ctx, s)
	}, false))
	a := f.agent()
	send(t, a, "keep me")
	<-entered
	a.Cancel()
	waitIdle(t, a)
	if got, want := types(a.Session()), []string{host.TypeTurnStart, host.TypeTurnEnd}; !slices.Equal(got, want) {
		t.Errorf("log = %v, want %v", got, want)
	}
	if p := a.Pending(); len(p) != 1 || p[0].Content[0].Text != "keep me" {
		t.Errorf("pending = %+v, want the message back", p)
	}
	unregister()
	f.steer(a, "next")
	if n := len(payloads[host.UserMessage](t, a.Session(), host.TypeUserMessage)); n != 2 {
		t.Errorf("%d user messages logged, want 2", n)
	}
}

func TestStop(t *testing.T) {
	f := newFixture(t, scripted.Step{Block: true})
	a := f.agent()
	send(t, a, "hi")
	if err := f.model.WaitCalls(ctxTimeout(t), 1); err != nil {
		t.Fatal(err)
	}
	if err := a.Stop(ctxTimeout(t)); err != nil {
		t.Fatal(err)
	}
	if got := lastTurnEnd(t, a.Session()); got.Reason != host.TurnCancelled {
		t.Errorf("turn end = %+v", got)
	}
	if err := a.Steer(userText("late")); !errors.Is(err, refhost.ErrAgentStopped) {
		t.Errorf("steer after stop: err = %v, want ErrAgentStopped", err)
	}
	if err := a.Stop(ctxTimeout(t)); err != nil {
		t.Errorf("second stop: %v", err)
	}
	// The session is free for a new agent.
	if _, err := f.rt.NewAgent("", a.Session()); err != nil {
		t.Errorf("new agent after stop: %v", err)
	}
}

// A Steer that arrives after Cancel but before the cancelled turn's next
// claim is swallowed by that claim; it must still get a turn of its own.
func TestSteerAfterCancelRuns(t *testing.T) {
	f := newFixture(t, scripted.Step{Text: "ok"})
	a := f.agent()
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	// Subscribers run inside Append: this one holds turn 1 right after its
	// "turn/start", before the step claims the queue.
	stop := a.Session().Subscribe(0, func(e host.Event) {
		if e.Type == host.TypeTurnStart {
			once.Do(func() {
				close(entered)
				<-release
			})
		}
	})
	defer stop()
	send(t, a, "first")
	<-entered
	a.Cancel()
	send(t, a, "second")
	close(release)
	waitIdle(t, a)
	// Turn 1 claims both with its context already cancelled and puts them
	// back; "second" came after the Cancel, so turn 2 runs and logs both.
	ends := payloads[host.TurnEnd](t, a.Session(), host.TypeTurnEnd)
	if len(ends) != 2 || ends[0].Reason != host.TurnCancelled || ends[1].Reason != host.TurnCompleted {
		t.Fatalf("turn ends = %+v, want cancelled then completed", ends)
	}
	var texts []string
	for _, m := range payloads[host.UserMessage](t, a.Session(), host.TypeUserMessage) {
		texts = append(texts, m.Content[0].Text)
	}
	if want := []string{"first", "second"}; !slices.Equal(texts, want) {
		t.Errorf("logged = %v, want %v", texts, want)
	}
}
