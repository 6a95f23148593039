package planmode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// benchSizes are the log lengths the hot-path benchmarks run at.
var benchSizes = []struct {
	name string
	n    int
}{
	{"log=1k", 1_000},
	{"log=1M", 1_000_000},
}

// benchLogs and benchSessions cache the benchmark logs by length, so that
// each is built once per test binary run however often the benchmarks run.
var (
	benchLogs     sync.Map // int → func() []host.Event
	benchSessions sync.Map // int → func() (host.Session, error)
)

// benchSession returns a memory session holding benchEvents(n). The
// benchmarks only read it.
func benchSession(n int) (host.Session, error) {
	build, _ := benchSessions.LoadOrStore(n, sync.OnceValues(func() (host.Session, error) {
		sess, err := store.NewMemory().Create("")
		if err != nil {
			return nil, err
		}
		for _, e := range benchEvents(n) {
			e.Seq = 0
			if _, err := sess.Append(e); err != nil {
				return nil, err
			}
		}
		return sess, nil
	}))
	return build.(func() (host.Session, error))()
}

// benchEvents returns a log of n events: one plan/mode (active) first, then
// turns of ordinary traffic, so that a backwards fold has to scan it all.
func benchEvents(n int) []host.Event {
	build, _ := benchLogs.LoadOrStore(n, sync.OnceValue(func() []host.Event {
		raw := func(v any) json.RawMessage {
			data, err := json.Marshal(v)
			if err != nil {
				panic(err)
			}
			return data
		}
		turn := []host.Event{
			{Type: host.TypeTurnStart, Data: raw(host.TurnStart{Turn: 1})},
			{Type: host.TypeStepStart, Data: raw(host.StepStart{Turn: 1, Step: 1, Attempt: 1})},
			{Type: host.TypeUserMessage, Data: raw(host.UserMessage{Content: []host.Block{host.TextBlock("look at the store package")}})},
			{Type: host.TypeRequestHeader, Data: raw(host.RequestHeader{Reason: host.HeaderChange, Sections: []string{"base", planmode.SectionName}})},
			{Type: host.TypeAssistantMessage, Data: raw(host.AssistantMessage{Text: "reading", ToolCalls: []host.ToolCall{{ID: "c1", Name: "read_file", Input: json.RawMessage(`{"path":"store/session.go"}`)}}})},
			{Type: host.TypeToolCall, Data: raw(host.ToolCall{ID: "c1", Name: "read_file", Input: json.RawMessage(`{"path":"store/session.go"}`)})},
			{Type: host.TypeToolResult, Data: raw(host.ToolResult{CallID: "c1", Name: "read_file", Output: "package store\n\n// ...\n"})},
			{Type: host.TypeStepEnd, Data: raw(host.StepEnd{Turn: 1, Step: 1, Attempt: 1})},
			{Type: host.TypeAssistantMessage, Data: raw(host.AssistantMessage{Text: "done"})},
			{Type: host.TypeTurnEnd, Data: raw(host.TurnEnd{Turn: 1, Reason: host.TurnCompleted})},
		}
		events := make([]host.Event, 0, n)
		events = append(events, host.Event{Type: planmode.EventPlanMode, Data: json.RawMessage(`{"active":true}`)})
		for len(events) < n {
			e := turn[(len(events)-1)%len(turn)]
			e.Seq = uint64(len(events) + 1)
			events = append(events, e)
		}
		return events
	}))
	return build.(func() []host.Event)()
}

// benchFixture is a started controller whose agent's session holds a log of
// n events.
type benchFixture struct {
	c       *planmode.Controller
	h       *fakeHost
	a       *fakeAgent
	section host.Section
	preStep host.PreStepListener
}

func newBenchFixture(b *testing.B, n int) *benchFixture {
	b.Helper()
	sess, err := benchSession(n)
	if err != nil {
		b.Fatal(err)
	}
	h := newFakeHost()
	c := h.start(b, nil)
	a := agentOn(sess)
	f := &benchFixture{c: c, h: h, a: a, section: h.Sections()[0], preStep: h.PreSteps()[0].Listener}
	// The first request's section folds the log once; the benchmarks
	// measure what follows.
	if text := f.section.Text(host.AssembleContext{Agent: a}); text != policy {
		b.Fatalf("section text = %q, want the policy", text)
	}
	return f
}

// BenchmarkGet measures Controller.Get on a served session with a short
// and a long log, and cycling through 10,000 served sessions.
func BenchmarkGet(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			f := newBenchFixture(b, size.n)
			benchGet(b, f.c, []host.Agent{f.a})
		})
	}
	b.Run("sessions=10k", func(b *testing.B) {
		h := newFakeHost()
		c := h.start(b, nil)
		agents := make([]host.Agent, 10_000)
		for i := range agents {
			a := h.newAgent(b)
			if got := set(b, c, a, true); got != planmode.Committed {
				b.Fatalf("Set(true) = %v, want committed", got)
			}
			agents[i] = a
		}
		benchGet(b, c, agents)
	})
}

// benchGet calls Get on agents in turn, each in plan mode.
func benchGet(b *testing.B, c *planmode.Controller, agents []host.Agent) {
	b.ReportAllocs()
	b.ResetTimer()
	active, i := true, 0
	for b.Loop() {
		active = c.Get(agents[i]).Active && active
		if i++; i == len(agents) {
			i = 0
		}
	}
	if !active {
		b.Fatal("inactive")
	}
}

func BenchmarkPreStepNoPending(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			f := newBenchFixture(b, size.n)
			ctx := context.Background()
			step := host.Step{Agent: f.a, Turn: 2, Step: 1, Attempt: 1}
			next := func(context.Context, host.Step) host.Decision { return host.Decision{Accepted: true} }
			b.ReportAllocs()
			b.ResetTimer()
			var d host.Decision
			for b.Loop() {
				d = f.preStep(ctx, step, next)
			}
			if !d.Accepted || len(d.Messages) != 0 {
				b.Fatalf("decision = %+v", d)
			}
		})
	}
}

func BenchmarkSectionText(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			f := newBenchFixture(b, size.n)
			ac := host.AssembleContext{Agent: f.a}
			b.ReportAllocs()
			b.ResetTimer()
			var text string
			for b.Loop() {
				text = f.section.Text(ac)
			}
			if text != policy {
				b.Fatalf("text = %q", text)
			}
		})
	}
}

func BenchmarkFoldPlanMode(b *testing.B) {
	for _, n := range []int{1_000_000} {
		b.Run(fmt.Sprintf("events=%dM", n/1_000_000), func(b *testing.B) {
			events := host.LogOf(benchEvents(n))
			b.ReportAllocs()
			b.ResetTimer()
			var active bool
			for b.Loop() {
				active = planmode.FoldPlanMode(events, events.Len())
			}
			if !active {
				b.Fatal("inactive")
			}
		})
	}
}
