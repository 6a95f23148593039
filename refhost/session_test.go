package refhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

func TestResume(t *testing.T) {
	f := newFixture(t, scripted.Step{Text: "first"}, scripted.Step{Text: "second"})
	a := f.agent()
	f.steer(a, "one")
	if err := a.Stop(ctxTimeout(t)); err != nil {
		t.Fatal(err)
	}
	s := must[host.Session](t)(f.store.Open(a.Session().ID()))
	b := must[*refhost.Agent](t)(f.rt.NewAgent("", s))
	if b.Turn() != 1 {
		t.Errorf("resumed turn = %d, want 1", b.Turn())
	}
	f.steer(b, "two")
	if got := lastTurnEnd(t, s); got != (host.TurnEnd{Turn: 2, Reason: host.TurnCompleted}) {
		t.Errorf("turn end = %+v", got)
	}
	msgs := f.model.Requests()[1].Messages
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Role)+":"+m.Text+textOf(m.Content))
	}
	if want := []string{"user:one", "assistant:first", "user:two"}; !slices.Equal(got, want) {
		t.Errorf("resumed transcript = %v, want %v", got, want)
	}
}

func textOf(bs []host.Block) string {
	var s string
	for _, b := range bs {
		s += b.Text
	}
	return s
}

func TestResumeClosesAnInterruptedTurn(t *testing.T) {
	f := newFixture(t, scripted.Step{Text: "ok"})
	s := must[host.Session](t)(f.store.Create(""))
	appendAll(t, s,
		host.Event{Type: host.TypeTurnStart, Data: json.RawMessage(`{"turn":4}`)},
		host.Event{Type: host.TypeStepStart, Data: json.RawMessage(`{"turn":4,"step":1,"attempt":1}`)},
		host.Event{Type: host.TypeAssistantMessage, Data: json.RawMessage(`{"toolCalls":[{"id":"c1","name":"t","input":{}},{"id":"c2","name":"t","input":{}},{"id":"c3","name":"t","input":{}}]}`)},
		host.Event{Type: host.TypeToolCall, Data: json.RawMessage(`{"id":"c1","name":"t","input":{}}`)},
		host.Event{Type: host.TypeToolResult, Data: json.RawMessage(`{"callId":"c1","name":"t","output":"done"}`)},
		host.Event{Type: host.TypeToolCall, Data: json.RawMessage(`{"id":"c2","name":"t","input":{}}`)},
	)
	n := s.Len()
	a := must[*refhost.Agent](t)(f.rt.NewAgent("", s))
	added := types(s)[n:]
	if want := []string{host.TypeToolResult, host.TypeToolCall, host.TypeToolResult, host.TypeTurnEnd}; !slices.Equal(added, want) {
		t.Fatalf("repair appended %v, want %v", added, want)
	}
	if got := lastTurnEnd(t, s); got != (host.TurnEnd{Turn: 4, Reason: host.TurnError, Error: refhost.TextTurnInterrupted}) {
		t.Errorf("turn end = %+v", got)
	}
	results := payloads[host.ToolResult](t, s, host.TypeToolResult)
	if len(results) != 3 || results[1].CallID != "c2" || results[2].CallID != "c3" || !results[2].IsError {
		t.Errorf("results = %+v", results)
	}
	f.steer(a, "go on")
	if got := lastTurnEnd(t, s); got.Turn != 5 || got.Reason != host.TurnCompleted {
		t.Errorf("next turn end = %+v, want turn 5 completed", got)
	}
}

func appendAll(t *testing.T, s host.Session, events ...host.Event) {
	t.Helper()
	for _, e := range events {
		must[host.Event](t)(s.Append(e))
	}
}

func TestFork(t *testing.T) {
	f := newFixture(t, texts(3)...)
	a := f.agent()
	f.steer(a, "parent")
	forked := must[host.Session](t)(a.Session().Fork(a.Session().Len()))
	b := must[*refhost.Agent](t)(f.rt.NewAgent("", forked))
	f.steer(b, "child")
	f.steer(a, "parent again")
	if got := lastTurnEnd(t, forked); got.Turn != 2 || got.Reason != host.TurnCompleted {
		t.Errorf("fork turn end = %+v", got)
	}
	headers := payloads[host.RequestHeader](t, forked, host.TypeRequestHeader)
	if len(headers) != 2 || headers[1].Reason != host.HeaderResume {
		t.Errorf("fork headers = %+v, want the parent's initial, then resume", headers)
	}
	if n := len(payloads[host.UserMessage](t, a.Session(), host.TypeUserMessage)); n != 2 {
		t.Errorf("parent has %d user messages, want 2 (the fork's stay in the fork)", n)
	}
}

func TestNewAgentTwiceOnOneSession(t *testing.T) {
	f := newFixture(t)
	a := f.agent()
	if _, err := f.rt.NewAgent("other", a.Session()); !errors.Is(err, host.ErrDuplicate) {
		t.Errorf("err = %v, want ErrDuplicate", err)
	}
}

func TestConcurrentSteer(t *testing.T) {
	const goroutines, each = 16, 8
	f := newFixture(t, texts(goroutines*each)...)
	a := f.agent()
	concurrently(goroutines, each, func(i int, msg host.Message) {
		var err error
		if i%3 == 2 {
			err = a.Inject(msg)
		} else {
			err = a.Steer(msg)
		}
		if err != nil {
			t.Error(err)
		}
	})
	// Injected messages only ride along with a later step; one last steer
	// makes sure a step comes after every inject.
	send(t, a, "last")
	waitIdle(t, a)
	seen := map[string]int{}
	for _, m := range payloads[host.UserMessage](t, a.Session(), host.TypeUserMessage) {
		seen[m.Content[0].Text]++
	}
	if len(seen) != goroutines*each+1 {
		t.Errorf("%d distinct messages logged, want %d", len(seen), goroutines*each+1)
	}
	for text, n := range seen {
		if n != 1 {
			t.Errorf("%q logged %d times", text, n)
		}
	}
	starts := payloads[host.TurnStart](t, a.Session(), host.TypeTurnStart)
	ends := payloads[host.TurnEnd](t, a.Session(), host.TypeTurnEnd)
	if len(starts) != len(ends) {
		t.Errorf("%d turn starts, %d ends", len(starts), len(ends))
	}
	for i, s := range starts {
		if s.Turn != i+1 {
			t.Errorf("turn %d numbered %d", i+1, s.Turn)
		}
	}
}

func TestSteerDuringTurnStartsAnother(t *testing.T) {
	var a *refhost.Agent
	f := newFixture(t,
		scripted.Step{Respond: func(context.Context, refhost.Request) (refhost.Response, error) {
			return refhost.Response{Text: "ok"}, a.Steer(userText("while running"))
		}},
		scripted.Step{Text: "ok"},
	)
	a = f.agent()
	f.steer(a, "hi")
	// WaitIdle may return between the turns only if the loop went idle,
	// which it must not: the second turn follows without a gap.
	if got := lastTurnEnd(t, a.Session()); got != (host.TurnEnd{Turn: 2, Reason: host.TurnCompleted}) {
		t.Errorf("turn end = %+v, want turn 2 completed", got)
	}
	if n := len(payloads[host.UserMessage](t, a.Session(), host.TypeUserMessage)); n != 2 {
		t.Errorf("%d user messages, want 2", n)
	}
}

func TestInject(t *testing.T) {
	var a *refhost.Agent
	f := newFixture(t,
		scripted.Step{Respond: func(context.Context, refhost.Request) (refhost.Response, error) {
			return refhost.Response{ToolCalls: []host.ToolCall{call("c1", "echo", `{"text":"x"}`)}}, a.Inject(userText("context during the turn"))
		}},
		scripted.Step{Text: "ok"},
		scripted.Step{Text: "ok"},
	)
	must[func()](t)(f.rt.AddTool(echoTool{name: "echo"}))
	a = f.agent()
	if err := a.Inject(userText("context")); err != nil {
		t.Fatal(err)
	}
	if a.Status() != host.StatusIdle || a.Session().Len() != 0 {
		t.Fatalf("inject woke the agent: status %s, %d events", a.Status(), a.Session().Len())
	}
	f.steer(a, "hi")
	reqs := f.model.Requests()
	if got := textOf(reqs[0].Messages[0].Content) + "|" + textOf(reqs[0].Messages[1].Content); got != "context|hi" {
		t.Errorf("first request user texts = %q", got)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != refhost.RoleUser || textOf(last.Content) != "context during the turn" {
		t.Errorf("continuation's last message = %+v, want the injected context", last)
	}
	if a.Turn() != 1 {
		t.Errorf("turns = %d: an inject must not start a turn", a.Turn())
	}
}

func TestEmptyMessage(t *testing.T) {
	f := newFixture(t)
	a := f.agent()
	if err := a.Steer(host.Message{}); !errors.Is(err, refhost.ErrEmptyMessage) {
		t.Errorf("err = %v, want ErrEmptyMessage", err)
	}
}

func TestCheckpoint(t *testing.T) {
	type seen struct {
		status host.AgentStatus
		last   string
	}
	var got []seen
	f := newFixtureOpts(t, refhost.Options{Checkpoint: func(_ context.Context, a *refhost.Agent) error {
		ev := a.Session().Events().Slice()
		got = append(got, seen{a.Status(), ev[len(ev)-1].Type})
		return errors.New("checkpoint errors are only logged")
	}}, scripted.Step{Text: "ok"})
	a := f.agent()
	f.steer(a, "hi")
	if want := []seen{{host.StatusRunning, host.TypeTurnEnd}}; !slices.Equal(got, want) {
		t.Errorf("checkpoint saw %+v, want %+v", got, want)
	}
}

func TestToolPanic(t *testing.T) {
	f := newFixture(t, scripted.Step{ToolCalls: []host.ToolCall{call("c1", "bad", `{}`)}}, scripted.Step{Text: "ok"})
	must[func()](t)(f.rt.AddTool(funcTool{name: "bad", fn: func(context.Context, host.CallContext, json.RawMessage) (string, error) {
		panic("oops")
	}}))
	a := f.agent()
	f.steer(a, "hi")
	res := payloads[host.ToolResult](t, a.Session(), host.TypeToolResult)
	if want := refhost.ToolErrorPrefix + fmt.Sprintf(refhost.TextToolPanicked, "oops"); len(res) != 1 || res[0].Output != want || !res[0].IsError {
		t.Errorf("results = %+v, want %q", res, want)
	}
}

func TestToolSeesAgent(t *testing.T) {
	f := newFixture(t, scripted.Step{ToolCalls: []host.ToolCall{call("c9", "who", `{}`)}}, scripted.Step{Text: "ok"})
	var cc host.CallContext
	must[func()](t)(f.rt.AddTool(funcTool{name: "who", fn: func(_ context.Context, c host.CallContext, _ json.RawMessage) (string, error) {
		cc = c
		return "", nil
	}}))
	a := f.agent()
	f.steer(a, "hi")
	if cc.Agent != a || cc.CallID != "c9" {
		t.Errorf("call context = %+v", cc)
	}
}

func TestScriptExhausted(t *testing.T) {
	f := newFixture(t)
	a := f.agent()
	f.steer(a, "hi")
	got := lastTurnEnd(t, a.Session())
	if got.Reason != host.TurnError || got.Error == "" {
		t.Errorf("turn end = %+v, want an error naming the exhausted script", got)
	}
}

// An agent resumed on a session sees the transcript the agent that wrote
// it saw.
func TestResumedAgentSeesTheSameTranscript(t *testing.T) {
	f := newFixture(t,
		scripted.Step{Text: "a", ToolCalls: []host.ToolCall{call("c1", "echo", `{"text":"x"}`), {ID: "c2", Name: "echo"}, call("c3", "echo", `{"text":`)}},
		scripted.Step{Text: "b"},
		scripted.Step{Text: "c"},
	)
	must[func()](t)(f.rt.AddTool(echoTool{name: "echo"}))
	a := f.agent()
	f.steer(a, "one")
	if err := a.Stop(ctxTimeout(t)); err != nil {
		t.Fatal(err)
	}
	// Run one more step on a fresh agent, then compare its view of the
	// shared prefix with the first agent's last request plus what followed.
	b := must[*refhost.Agent](t)(f.rt.NewAgent("", a.Session()))
	f.steer(b, "two")
	reqs := f.model.Requests()
	first, resumed := reqs[1].Messages, reqs[2].Messages
	if len(resumed) != len(first)+2 {
		t.Fatalf("resumed agent sent %d messages, the first %d (+ assistant b + user two)", len(resumed), len(first))
	}
	a1, _ := json.Marshal(first)
	b1, _ := json.Marshal(resumed[:len(first)])
	if string(a1) != string(b1) {
		t.Errorf("the transcripts differ:\n%s\n%s", a1, b1)
	}
	results := payloads[host.ToolResult](t, a.Session(), host.TypeToolResult)
	if len(results) != 3 || results[1].Output != "" || results[1].IsError || results[2].Output != refhost.TextBadToolInput {
		t.Errorf("results = %+v: a missing input is {} and bad JSON is refused", results)
	}
	calls := payloads[host.ToolCall](t, a.Session(), host.TypeToolCall)
	if string(calls[1].Input) != `{}` || string(calls[2].Input) != `"{\"text\":"` {
		t.Errorf("logged inputs = %s, %s", calls[1].Input, calls[2].Input)
	}
}
