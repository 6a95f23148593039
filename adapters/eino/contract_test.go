package eino_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/dshgo/planmode"
	planeino "github.com/dshgo/planmode/adapters/eino"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
)

// TestToolCalls checks what a tool call logs and what the model reads:
// a tool's error and a guard's refusal are is-error results, and the turn
// goes on.
func TestToolCalls(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		wantOut   string // a part of the result
		wantError bool
	}{
		{"a call that succeeds", "main.go", "package main // main.go", false},
		{"a tool's error is a result the model reads", "missing.go", "no such file", true},
		{"a guard's refusal is a result, and the tool does not run", "secret.go", host.ToolErrorPrefix + "secrets are off limits", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st := store.NewMemory()
			m := &scripted{t: t, replies: []reply{
				call("c1", "read_file", map[string]string{"path": tt.path}, nil),
				answer("ok", func(t testing.TB, in []*schema.Message) {
					if last := in[len(in)-1]; last.Role != schema.Tool || !strings.Contains(last.Content, tt.wantOut) {
						t.Errorf("the model read %q, want %q", last.Content, tt.wantOut)
					}
				}),
			}}
			e := newEnv(t, st, m, &answers{})
			// The guard names another tool: guards see every call all the
			// same (host.ToolGuards).
			unguard, err := e.h.AddToolGuard(host.Guard{Name: "no-secrets", Tools: []string{planmode.ExitToolName}, Check: func(_ context.Context, _ host.CallContext, _ string, in json.RawMessage) error {
				if strings.Contains(string(in), "secret") {
					return errors.New("secrets are off limits")
				}
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer unguard()
			sess, _ := st.Create("")
			a, err := e.h.NewAgent(sess)
			if err != nil {
				t.Fatal(err)
			}
			if errs := run(t, ctx, a, e.ag, "Read it."); len(errs) > 0 {
				t.Fatalf("run: %v", errs)
			}
			got := results(sess)
			if len(got) != 1 || !strings.Contains(got[0].Output, tt.wantOut) || got[0].IsError != tt.wantError ||
				got[0].IsError != strings.HasPrefix(got[0].Output, host.ToolErrorPrefix) || got[0].Name != "read_file" {
				t.Errorf("results = %+v, want one read_file result %q (isError %v)", got, tt.wantOut, tt.wantError)
			}
			ts := types(sess, 0)
			call := indexOf(ts, host.TypeToolCall)
			if call < 0 || indexOf(ts, host.TypeToolResult) < call {
				t.Errorf("tool/call does not come before tool/result: %v", ts)
			}
			if ts[len(ts)-1] != host.TypeTurnEnd {
				t.Errorf("the turn did not end: %v", ts)
			}
		})
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// TestPreStepRejectionBlocksTheTurn: a listener that rejects the step ends
// the turn blocked, no request is made, and the user's message waits for
// the next turn.
func TestPreStepRejectionBlocksTheTurn(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	m := &scripted{t: t, replies: []reply{answer("hello", func(t testing.TB, in []*schema.Message) {
		if last := in[len(in)-1]; last.Role != schema.User || last.Content != "Hi." {
			t.Errorf("the held message did not reach the next turn: %v", last)
		}
	})}}
	e := newEnv(t, st, m, &answers{})
	reject := true
	unreg, err := e.h.AddPreStep("gate", func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
		if reject {
			return host.Reject("not now")
		}
		return next(ctx, s)
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer unreg()
	sess, _ := st.Create("")
	a, _ := e.h.NewAgent(sess)
	errs := run(t, ctx, a, e.ag, "Hi.")
	if len(errs) == 0 || !errors.Is(errs[0], planeino.ErrBlocked) {
		t.Fatalf("run errors = %v, want ErrBlocked", errs)
	}
	var end host.TurnEnd
	log := sess.Events()
	_ = json.Unmarshal(log.At(log.Len()-1).Data, &end)
	if end.Reason != host.TurnBlocked || end.Error != "not now" {
		t.Errorf("turn/end = %+v, want blocked with the rejection's reason", end)
	}
	reject = false
	if errs := run(t, ctx, a, e.ag, ""); len(errs) > 0 {
		t.Fatalf("second run: %v", errs)
	}
	if m.left() != 0 {
		t.Errorf("%d replies left", m.left())
	}
}

// TestNewAgentRepairsAnInterruptedTurn: a process that stopped mid-turn
// left a call without a result and an open turn; the next agent answers
// the call and closes the turn, and the next request pairs the call.
func TestNewAgentRepairsAnInterruptedTurn(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	sess, _ := st.Create("")
	for _, ev := range []struct {
		typ string
		v   any
	}{
		{host.TypeTurnStart, host.TurnStart{Turn: 1}},
		{host.TypeStepStart, host.StepStart{Turn: 1, Step: 1, Attempt: 1}},
		{host.TypeUserMessage, host.UserMessage{Content: []host.Block{host.TextBlock("Read main.go.")}}},
		{host.TypeAssistantMessage, host.AssistantMessage{ToolCalls: []host.ToolCall{{ID: "c1", Name: "read_file", Input: json.RawMessage(`{"path":"main.go"}`)}}}},
		{host.TypeToolCall, host.ToolCall{ID: "c1", Name: "read_file", Input: json.RawMessage(`{"path":"main.go"}`)}},
	} {
		data, _ := json.Marshal(ev.v)
		if _, err := sess.Append(host.Event{Type: ev.typ, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	m := &scripted{t: t, replies: []reply{answer("ok", func(t testing.TB, in []*schema.Message) {
		for i, msg := range in {
			if len(msg.ToolCalls) > 0 && (i+1 >= len(in) || in[i+1].ToolCallID != "c1" || !strings.HasPrefix(in[i+1].Content, host.ToolErrorPrefix)) {
				t.Errorf("the interrupted call is not answered right after it: %v", in)
			}
		}
	})}}
	e := newEnv(t, st, m, &answers{})
	a, err := e.h.NewAgent(sess)
	if err != nil {
		t.Fatal(err)
	}
	ts := types(sess, 5)
	want := []string{host.TypeToolResult, host.TypeStepEnd, host.TypeTurnEnd}
	if strings.Join(ts, " ") != strings.Join(want, " ") {
		t.Errorf("repair appended %v, want %v", ts, want)
	}
	if r := results(sess); len(r) != 1 || !r[0].IsError || r[0].Output != refhost.ToolErrorPrefix+refhost.TextTurnInterrupted {
		t.Errorf("results = %+v, want one is-error result in the reference host's words", r)
	}
	if errs := run(t, ctx, a, e.ag, "Go on."); len(errs) > 0 {
		t.Fatalf("run: %v", errs)
	}
	var ts2 host.TurnStart
	for _, ev := range sess.Events().All() {
		if ev.Type == host.TypeTurnStart {
			_ = json.Unmarshal(ev.Data, &ts2)
		}
	}
	if ts2.Turn != 2 {
		t.Errorf("the next turn is %d, want 2", ts2.Turn)
	}
}

// TestRunOutsideAgentFails: a chat-model call that no Agent.Run carries
// fails closed instead of running unlogged.
func TestRunOutsideAgentFails(t *testing.T) {
	ctx := context.Background()
	m := &scripted{t: t, replies: []reply{answer("unlogged", nil)}}
	e := newEnv(t, store.NewMemory(), m, &answers{})
	it := adk.NewRunner(ctx, adk.RunnerConfig{Agent: e.ag}).Query(ctx, "Hi.")
	var errs []error
	for {
		ev, ok := it.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			errs = append(errs, ev.Err)
		}
	}
	if len(errs) == 0 || !errors.Is(errs[0], planeino.ErrNoAgent) {
		t.Errorf("errors = %v, want ErrNoAgent", errs)
	}
	if m.left() != 1 {
		t.Error("the model was called outside Agent.Run")
	}
}

// blocking is a chat model that answers once released.
type blocking struct {
	scripted
	release chan struct{}
}

func (b *blocking) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	<-b.release
	return b.scripted.Generate(ctx, in, opts...)
}

func (b *blocking) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return b, nil }

// TestRunWhileRunningIsBusy: one turn at a time per agent.
func TestRunWhileRunningIsBusy(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	m := &blocking{scripted: scripted{t: t, replies: []reply{answer("done", nil)}}, release: make(chan struct{})}
	e := newEnv(t, st, m, &answers{})
	sess, _ := st.Create("")
	a, _ := e.h.NewAgent(sess)
	first := a.Run(ctx, e.ag, "One.")
	if a.Status() != host.StatusRunning {
		t.Errorf("status = %s during a turn", a.Status())
	}
	if errs := run(t, ctx, a, e.ag, "Two."); len(errs) != 1 || !errors.Is(errs[0], host.ErrAgentBusy) {
		t.Errorf("second run errors = %v, want ErrAgentBusy", errs)
	}
	close(m.release)
	for {
		ev, ok := first.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			t.Errorf("first run: %v", ev.Err)
		}
	}
	if a.Status() != host.StatusIdle {
		t.Errorf("status = %s after the turn", a.Status())
	}
}

// calls is a reply that calls read_file (c2) next to a tool the agent
// does not have (c1, "nope").
func calls(t testing.TB, in []*schema.Message) *schema.Message {
	return &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{
		{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "nope", Arguments: `{}`}},
		{ID: "c2", Type: "function", Function: schema.FunctionCall{Name: "read_file", Arguments: `{"path":"main.go"}`}},
	}}
}

// TestEveryCallGetsOneResult: every call of a reply gets one tool/result
// after its tool/call, also when Eino fails before the tool wrapper runs
// (a made-up tool name), and Host.UnknownTool turns a made-up name into
// an is-error result the model reads.
func TestEveryCallGetsOneResult(t *testing.T) {
	tests := []struct {
		name      string
		unknown   bool // the agent sets Host.UnknownTool
		replies   []reply
		wantEnd   host.TurnEndReason
		wantNope  string // a part of c1's result
		wantError bool   // the run reports an error
	}{
		{"a made-up tool ends the run and both calls are answered", false, []reply{calls},
			host.TurnError, host.ToolErrorPrefix, true},
		{"with UnknownTool the model reads an is-error result and the turn goes on", true, []reply{calls, answer("ok", nil)},
			host.TurnCompleted, `unknown tool "nope"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := store.NewMemory()
			m := &scripted{t: t, replies: tt.replies}
			e := newEnv(t, st, m, &answers{})
			ag := e.agent(t, m, func(c *adk.ChatModelAgentConfig) {
				if tt.unknown {
					c.ToolsConfig.UnknownToolsHandler = e.h.UnknownTool
				}
			})
			sess, _ := st.Create("")
			a, err := e.h.NewAgent(sess)
			if err != nil {
				t.Fatal(err)
			}
			if errs := run(t, context.Background(), a, ag, "Read it."); (len(errs) > 0) != tt.wantError {
				t.Fatalf("run errors = %v, want an error %v", errs, tt.wantError)
			}
			checkAnswered(t, sess, "c1", "c2")
			if r := results(sess); len(r) == 0 || r[0].CallID != "c1" || !r[0].IsError || !strings.Contains(r[0].Output, tt.wantNope) {
				t.Errorf("results = %+v, want c1's first, is-error, with %q", r, tt.wantNope)
			}
			log := sess.Events()
			var end host.TurnEnd
			_ = json.Unmarshal(log.At(log.Len()-1).Data, &end)
			if end.Reason != tt.wantEnd {
				t.Errorf("turn/end = %+v, want %s; the log: %v", end, tt.wantEnd, types(sess, 0))
			}
		})
	}
}

// TestNewAgentAnswersCallsWithoutToolCall: a process that stopped after
// the reply but before any tool/call left calls only in the
// assistant/message; the next agent answers each once.
func TestNewAgentAnswersCallsWithoutToolCall(t *testing.T) {
	st := store.NewMemory()
	sess, _ := st.Create("")
	for _, ev := range []struct {
		typ string
		v   any
	}{
		{host.TypeTurnStart, host.TurnStart{Turn: 1}},
		{host.TypeStepStart, host.StepStart{Turn: 1, Step: 1, Attempt: 1}},
		{host.TypeAssistantMessage, host.AssistantMessage{ToolCalls: []host.ToolCall{
			{ID: "c1", Name: "read_file", Input: json.RawMessage(`{}`)}, {ID: "c2", Name: "read_file", Input: json.RawMessage(`{}`)},
		}}},
	} {
		data, _ := json.Marshal(ev.v)
		if _, err := sess.Append(host.Event{Type: ev.typ, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, st, &scripted{t: t}, &answers{})
	if _, err := e.h.NewAgent(sess); err != nil {
		t.Fatal(err)
	}
	checkAnswered(t, sess, "c1", "c2")
}

// checkAnswered checks that each call has one tool/call and, after it,
// one tool/result.
func checkAnswered(t testing.TB, sess host.Session, ids ...string) {
	t.Helper()
	for _, id := range ids {
		call, res, n := -1, -1, 0
		for i, e := range sess.Events().All() {
			var v struct{ ID, CallID string }
			_ = json.Unmarshal(e.Data, &v)
			switch {
			case e.Type == host.TypeToolCall && v.ID == id && call < 0:
				call = i
			case e.Type == host.TypeToolResult && v.CallID == id:
				res, n = i, n+1
			}
		}
		if call < 0 || n != 1 || res < call {
			t.Errorf("call %s: tool/call at %d, %d tool/result (last at %d), want one after the call; the log: %v", id, call, n, res, types(sess, 0))
		}
	}
}

// TestInterruptEndsTheTurnWithAnError: a tool that interrupts the run
// (compose.Interrupt) ends the turn with reason error and a text saying
// so, not completed, and its call is answered.
func TestInterruptEndsTheTurnWithAnError(t *testing.T) {
	st := store.NewMemory()
	m := &scripted{t: t, replies: []reply{call("i1", "confirm", map[string]string{}, nil)}}
	e := newEnv(t, st, m, &answers{})
	confirm, err := utils.InferTool("confirm", "Ask the user to confirm.", func(ctx context.Context, _ struct{}) (string, error) {
		return "", compose.Interrupt(ctx, "confirm?")
	})
	if err != nil {
		t.Fatal(err)
	}
	ag := e.agent(t, m, func(c *adk.ChatModelAgentConfig) { c.ToolsConfig.Tools = append(c.ToolsConfig.Tools, confirm) })
	sess, _ := st.Create("")
	a, _ := e.h.NewAgent(sess)
	run(t, context.Background(), a, ag, "Do it.")
	log := sess.Events()
	var end host.TurnEnd
	_ = json.Unmarshal(log.At(log.Len()-1).Data, &end)
	if end.Reason != host.TurnError || !strings.Contains(end.Error, "interrupt") {
		t.Errorf("turn/end = %+v, want reason error saying the run was interrupted; the log: %v", end, types(sess, 0))
	}
	checkAnswered(t, sess, "i1")
}

// TestMaxIterationsExhaustsTheSteps: a turn that runs out of the agent's
// MaxIterations ends with reason steps_exhausted, as the reference host's
// step bound does, and its calls are answered.
func TestMaxIterationsExhaustsTheSteps(t *testing.T) {
	st := store.NewMemory()
	m := &scripted{t: t, replies: []reply{
		call("r1", "read_file", map[string]string{"path": "a.go"}, nil),
		call("r2", "read_file", map[string]string{"path": "b.go"}, nil),
		answer("never", nil),
	}}
	e := newEnv(t, st, m, &answers{})
	ag := e.agent(t, m, func(c *adk.ChatModelAgentConfig) { c.MaxIterations = 2 })
	sess, _ := st.Create("")
	a, _ := e.h.NewAgent(sess)
	errs := run(t, context.Background(), a, ag, "Read them.")
	if len(errs) == 0 || !errors.Is(errs[0], adk.ErrExceedMaxIterations) {
		t.Fatalf("run errors = %v, want adk.ErrExceedMaxIterations", errs)
	}
	log := sess.Events()
	var end host.TurnEnd
	_ = json.Unmarshal(log.At(log.Len()-1).Data, &end)
	if end.Reason != host.TurnStepsExhausted || end.Error == "" {
		t.Errorf("turn/end = %+v, want steps_exhausted with the error; the log: %v", end, types(sess, 0))
	}
	checkAnswered(t, sess, "r1", "r2")
}

// TestPluginTranscriptEventsReachTheModel: a plugin's event of a declared
// transcript kind reaches the model as a user message, as the reference
// host sends it: its "content" blocks, or "[type] payload"; a log-only
// type does not.
func TestPluginTranscriptEventsReachTheModel(t *testing.T) {
	st := store.NewMemory()
	var seen []string
	m := &scripted{t: t, replies: []reply{answer("ok", func(_ testing.TB, in []*schema.Message) {
		for _, msg := range in {
			if msg.Role == schema.User {
				seen = append(seen, msg.Content)
			}
		}
	})}}
	e := newEnv(t, st, m, &answers{})
	for _, d := range []host.EventType{{Name: "memo/note", Kind: host.Transcript}, {Name: "memo/raw", Kind: host.Transcript}, {Name: "memo/hidden", Kind: host.LogOnly}} {
		if _, err := e.h.DeclareEventType(d); err != nil {
			t.Fatal(err)
		}
	}
	sess, _ := st.Create("")
	for _, ev := range []struct{ typ, data string }{
		{"memo/note", `{"content":[{"type":"text","text":"remember the tests"}]}`},
		{"memo/raw", `{"n":1}`},
		{"memo/hidden", `{"content":[{"type":"text","text":"secret"}]}`},
	} {
		if _, err := sess.Append(host.Event{Type: ev.typ, Data: json.RawMessage(ev.data)}); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := e.h.NewAgent(sess)
	if errs := run(t, context.Background(), a, e.ag, "Go."); len(errs) > 0 {
		t.Fatalf("run: %v", errs)
	}
	want := []string{"remember the tests", `[memo/raw] {"n":1}`, "Go."}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("the model read user messages %q, want %q", seen, want)
	}
}

// TestFailedTurnStartKeepsTheNumber: a turn whose turn/start could not be
// written did not happen; the next turn takes its number.
func TestFailedTurnStartKeepsTheNumber(t *testing.T) {
	st := store.NewMemory()
	m := &scripted{t: t, replies: []reply{answer("ok", nil)}}
	e := newEnv(t, st, m, &answers{})
	refuse := true
	unreg, err := st.AddValidator("refuse-turn-start", func(ev host.Event) error {
		if ev.Type == host.TypeTurnStart && refuse {
			return errors.New("refused")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer unreg()
	sess, _ := st.Create("")
	a, _ := e.h.NewAgent(sess)
	if errs := run(t, context.Background(), a, e.ag, "One."); len(errs) == 0 {
		t.Fatal("the run whose turn/start was refused reported no error")
	}
	refuse = false
	if errs := run(t, context.Background(), a, e.ag, "Two."); len(errs) > 0 {
		t.Fatalf("run: %v", errs)
	}
	var ts host.TurnStart
	_ = json.Unmarshal(sess.Events().At(0).Data, &ts)
	if ts.Turn != 1 {
		t.Errorf("the first turn/start in the log is turn %d, want 1; the log: %v", ts.Turn, types(sess, 0))
	}
}
