package refhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/reviewfault"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
)

// errInjected is the failure a flakySession injects.
var errInjected = errors.New("injected: no space left on device")

// flakySession fails the append numbered failAt (1-based, counting Append
// and AppendIf), once, as a store does on a transient write error: the
// failed append changes nothing.
type flakySession struct {
	host.Session
	mu     sync.Mutex
	n      int
	failAt int
	failed string // the type of the event whose append failed
}

func (s *flakySession) fail(typ string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if s.n != s.failAt {
		return false
	}
	s.failed = typ
	return true
}

func (s *flakySession) appends() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, s.failed
}

func (s *flakySession) Append(e host.Event) (host.Event, error) {
	if s.fail(e.Type) {
		return host.Event{}, errInjected
	}
	return s.Session.Append(e)
}

func (s *flakySession) AppendIf(e host.Event, cond func() bool) (host.Event, bool, error) {
	if s.fail(e.Type) {
		return host.Event{}, false, errInjected
	}
	return s.Session.AppendIf(e, cond)
}

// strictModel answers from a queue of responses, after refusing (as a 400
// would) any request that reviewfault.StrictError refuses.
type strictModel struct {
	mu      sync.Mutex
	replies []refhost.Response
	refused []error
}

func (m *strictModel) Generate(_ context.Context, req refhost.Request) (refhost.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := reviewfault.StrictError(req.Messages); err != nil {
		m.refused = append(m.refused, err)
		return refhost.Response{}, fmt.Errorf("400 Bad Request: %w", err)
	}
	if len(m.replies) == 0 {
		return refhost.Response{Text: "Done."}, nil
	}
	r := m.replies[0]
	m.replies = m.replies[1:]
	return r, nil
}

func (m *strictModel) queue(rs ...refhost.Response) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replies = append(m.replies, rs...)
}

func (m *strictModel) refusals() []error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.refused)
}

// lossTool is an echo tool that records the losses it is told of.
type lossTool struct {
	echoTool
	mu     sync.Mutex
	losses []string
}

var _ host.ResultLossHandler = (*lossTool)(nil)

func (l *lossTool) ResultLost(_ context.Context, call host.CallContext, err error) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.losses = append(l.losses, call.CallID)
	return host.ToolErrorPrefix + "echo lost: " + err.Error()
}

func (l *lossTool) lost() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.losses)
}

// TestEveryFailedAppendLeavesAWorkingSession fails each append of a turn
// with a batch of two tool calls in turn, once, then runs two more turns
// (the second after a resume) against an endpoint that refuses unanswered
// tool calls: they must succeed, and the log must be a valid transcript.
func TestEveryFailedAppendLeavesAWorkingSession(t *testing.T) {
	batch := refhost.Response{Text: "Looking.", ToolCalls: []host.ToolCall{
		call("c1", "echo", `{"text":"one"}`), call("c2", "echo", `{"text":"two"}`),
	}}
	// A clean run counts the appends of the turn.
	clean := runFlaky(t, 0, batch)
	if clean.err != nil {
		t.Fatal(clean.err)
	}
	for k := 1; k <= clean.appends; k++ {
		t.Run(fmt.Sprintf("append %d of %d fails", k, clean.appends), func(t *testing.T) {
			r := runFlaky(t, k, batch)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.failedType == host.TypeToolResult {
				if got := r.tool.lost(); len(got) != 1 {
					t.Fatalf("the tool was told of losses %v, want one", got)
				}
				if !r.hasOutput(t, "echo lost: ", errInjected.Error()) {
					t.Fatal("the lost result is not the tool's text")
				}
			}
		})
	}
}

type flakyRun struct {
	appends    int
	failedType string
	tool       *lossTool
	events     []host.Event
	err        error
}

func (r flakyRun) hasOutput(t *testing.T, prefix, text string) bool {
	for _, e := range r.events {
		if e.Type != host.TypeToolResult {
			continue
		}
		var p host.ToolResult
		if err := json.Unmarshal(e.Data, &p); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p.Output, host.ToolErrorPrefix+prefix) && strings.Contains(p.Output, text) && p.IsError {
			return true
		}
	}
	return false
}

// runFlaky runs the turn with batch with append failAt failing (0: none),
// then a turn, then a resumed agent's turn.
func runFlaky(t *testing.T, failAt int, batch refhost.Response) (r flakyRun) {
	t.Helper()
	mem := store.NewMemory()
	inner, err := mem.Create("s")
	if err != nil {
		t.Fatal(err)
	}
	sess := &flakySession{Session: inner, failAt: failAt}
	model := &strictModel{}
	model.queue(batch)
	r.tool = &lossTool{echoTool: echoTool{name: "echo"}}
	rt := newRuntime(t, mem, model, r.tool)
	a, err := rt.NewAgent("", sess)
	if err != nil {
		t.Fatal(err)
	}
	types := func() []string {
		var out []string
		for _, e := range inner.Events().Slice() {
			out = append(out, e.Type)
		}
		return out
	}
	steerWait(t, a, "Look at both.")
	r.appends, r.failedType = sess.appends()
	steerWait(t, a, "And now?")
	if end := lastTurnEnd(t, inner); end.Reason != host.TurnCompleted {
		r.err = fmt.Errorf("the turn after the failure ended %s (%s); log %v; refused %v", end.Reason, end.Error, types(), model.refusals())
		return r
	}
	if err := reviewfault.TranscriptError(inner.Events().Slice()); err != nil {
		r.err = fmt.Errorf("after the next turn: %w; log %v", err, types())
		return r
	}
	stop(t, rt)
	// Resume: a new runtime on the same session.
	rt2 := newRuntime(t, mem, model, r.tool)
	a2, err := rt2.NewAgent("", inner)
	if err != nil {
		t.Fatal(err)
	}
	steerWait(t, a2, "Once more.")
	if end := lastTurnEnd(t, inner); end.Reason != host.TurnCompleted {
		r.err = fmt.Errorf("the turn after the resume ended %s (%s); refused %v", end.Reason, end.Error, model.refusals())
		return r
	}
	r.events = inner.Events().Slice()
	if err := reviewfault.TranscriptError(r.events); err != nil {
		r.err = fmt.Errorf("after the resume: %w; log %v", err, types())
		return r
	}
	if got := model.refusals(); len(got) > 0 {
		r.err = fmt.Errorf("the endpoint refused requests: %v", got)
	}
	return r
}

func newRuntime(t *testing.T, st host.Store, m refhost.Model, tools ...host.Tool) *refhost.Runtime {
	t.Helper()
	rt, err := refhost.New(refhost.Options{Store: st, Model: m, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if _, err := rt.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { stop(t, rt) })
	return rt
}

func stop(t *testing.T, rt *refhost.Runtime) {
	t.Helper()
	within(t, rt.Stop)
}

// brokenLogs are logs another writer (an older version, a failed append
// that committed after all, a crash) left with tool calls and results out
// of pairing, anywhere in the log.
var brokenLogs = []struct {
	name   string
	events func(add func(typ string, payload any))
}{
	{"a call without a result in a closed turn, then more turns", func(add func(string, any)) {
		turn(add, 1, host.AssistantMessage{ToolCalls: []host.ToolCall{call("a1", "echo", `{}`)}})
		turn(add, 2, host.AssistantMessage{Text: "fine"})
	}},
	{"one of two calls answered, a user message before the other's late result", func(add func(string, any)) {
		turn(add, 1, host.AssistantMessage{ToolCalls: []host.ToolCall{call("a1", "echo", `{}`), call("a2", "echo", `{}`)}},
			host.ToolResult{CallID: "a2", Name: "echo", Output: "two"})
		add(host.TypeUserMessage, host.UserMessage{Content: []host.Block{host.TextBlock("meanwhile")}})
		add(host.TypeToolResult, host.ToolResult{CallID: "a1", Name: "echo", Output: "late"})
	}},
	{"a result that answers no call, and one given twice", func(add func(string, any)) {
		turn(add, 1, host.AssistantMessage{ToolCalls: []host.ToolCall{call("a1", "echo", `{}`)}},
			host.ToolResult{CallID: "a1", Name: "echo", Output: "one"},
			host.ToolResult{CallID: "a1", Name: "echo", Output: "again"},
			host.ToolResult{CallID: "zz", Name: "echo", Output: "nobody asked"})
	}},
	{"calls left open by a turn that never ended, in the middle of the log", func(add func(string, any)) {
		add(host.TypeTurnStart, host.TurnStart{Turn: 1})
		add(host.TypeUserMessage, host.UserMessage{Content: []host.Block{host.TextBlock("go")}})
		add(host.TypeAssistantMessage, host.AssistantMessage{ToolCalls: []host.ToolCall{call("a1", "echo", `{}`)}})
		add(host.TypeToolCall, call("a1", "echo", `{}`))
		turn(add, 2, host.AssistantMessage{Text: "fine"})
	}},
}

// turn adds a whole turn: a user message, the assistant message and the
// results given (each after its tool/call).
func turn(add func(string, any), n int, m host.AssistantMessage, results ...host.ToolResult) {
	add(host.TypeTurnStart, host.TurnStart{Turn: n})
	add(host.TypeUserMessage, host.UserMessage{Content: []host.Block{host.TextBlock("go")}})
	add(host.TypeAssistantMessage, m)
	for _, r := range results {
		add(host.TypeToolCall, host.ToolCall{ID: r.CallID, Name: r.Name, Input: json.RawMessage(`{}`)})
		add(host.TypeToolResult, r)
	}
	add(host.TypeTurnEnd, host.TurnEnd{Turn: n, Reason: host.TurnCompleted})
}

// TestRequestsPairToolCallsAnywhereInTheLog runs a turn on each broken log,
// written by another writer while the agent runs and, separately, found at
// resume: the endpoint, which refuses unpaired tool calls, must accept the
// request. At resume every call without a result gets one in the log.
func TestRequestsPairToolCallsAnywhereInTheLog(t *testing.T) {
	for _, tt := range brokenLogs {
		for _, resume := range []bool{false, true} {
			name := tt.name + map[bool]string{false: ", written while the agent runs", true: ", found at resume"}[resume]
			t.Run(name, func(t *testing.T) {
				mem := store.NewMemory()
				sess, err := mem.Create("s")
				if err != nil {
					t.Fatal(err)
				}
				add := func(typ string, payload any) {
					data, err := json.Marshal(payload)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := sess.Append(host.Event{Type: typ, Data: data}); err != nil {
						t.Fatal(err)
					}
				}
				model := &strictModel{}
				rt := newRuntime(t, mem, model, echoTool{name: "echo"})
				var a *refhost.Agent
				if !resume {
					a = must[*refhost.Agent](t)(rt.NewAgent("", sess))
				}
				tt.events(add)
				if resume {
					a = must[*refhost.Agent](t)(rt.NewAgent("", sess))
					if got := unansweredCalls(t, sess.Events().Slice()); len(got) > 0 {
						t.Fatalf("after the resume, calls %v have no result", got)
					}
				}
				steerWait(t, a, "Next.")
				if end := lastTurnEnd(t, sess); end.Reason != host.TurnCompleted {
					t.Fatalf("turn ended %s (%s); refused %v", end.Reason, end.Error, model.refusals())
				}
			})
		}
	}
}

// unansweredCalls lists the tool calls of the log that no "tool/result"
// answers.
func unansweredCalls(t *testing.T, events []host.Event) []string {
	t.Helper()
	var calls []string
	answered := map[string]bool{}
	for _, e := range events {
		switch e.Type {
		case host.TypeAssistantMessage:
			var p host.AssistantMessage
			if err := json.Unmarshal(e.Data, &p); err != nil {
				t.Fatal(err)
			}
			for _, c := range p.ToolCalls {
				calls = append(calls, c.ID)
			}
		case host.TypeToolResult:
			var p host.ToolResult
			if err := json.Unmarshal(e.Data, &p); err != nil {
				t.Fatal(err)
			}
			answered[p.CallID] = true
		}
	}
	return slices.DeleteFunc(calls, func(id string) bool { return answered[id] })
}
