package refhost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
)

// benchModel answers instantly: tool calls to "noop" while calls remain,
// then text. It does no work, so the benchmark measures the host.
type benchModel struct {
	toolSteps atomic.Int64
}

func (m *benchModel) Generate(context.Context, refhost.Request) (refhost.Response, error) {
	if m.toolSteps.Add(-1) >= 0 {
		return refhost.Response{ToolCalls: []host.ToolCall{{ID: "c", Name: "noop", Input: json.RawMessage(`{}`)}}}, nil
	}
	return refhost.Response{Text: "ok"}, nil
}

type noopTool struct{ name string }

func (n noopTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: n.name, Description: "does nothing, quickly", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
}

func (noopTool) Execute(context.Context, host.CallContext, json.RawMessage) (string, error) {
	return "done", nil
}

// benchAgent returns an agent with 10 sections, 20 tools and a 10k-event
// log, warmed up by one turn so that the log is folded once.
func benchAgent(b *testing.B, m *benchModel) *refhost.Agent {
	b.Helper()
	st := store.NewMemory()
	rt, err := refhost.New(refhost.Options{Store: st, Model: m})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = rt.Stop(context.Background()) })
	for i := range 10 {
		text := strings.Repeat(fmt.Sprintf("Section %d says something useful. ", i), 8)
		if _, err := rt.AddSection(host.Section{Name: fmt.Sprintf("s%02d", i), Order: i % 3, Text: func(host.AssembleContext) string { return text }}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 19 {
		if _, err := rt.AddTool(noopTool{name: fmt.Sprintf("tool%02d", i)}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := rt.AddTool(noopTool{name: "noop"}); err != nil {
		b.Fatal(err)
	}
	if _, err := rt.AddPreStep("pass", func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision { return next(ctx, s) }, true); err != nil {
		b.Fatal(err)
	}
	s, err := st.Create("")
	if err != nil {
		b.Fatal(err)
	}
	fillLog(b, s, 10_000)
	a, err := rt.NewAgent("", s)
	if err != nil {
		b.Fatal(err)
	}
	if err := a.Steer(userText("warm up")); err != nil {
		b.Fatal(err)
	}
	if err := a.WaitIdle(context.Background()); err != nil {
		b.Fatal(err)
	}
	return a
}

// fillLog appends n events shaped like real turns: user message, assistant
// with a tool call, the call and its result, and the log-only bracketing.
func fillLog(b *testing.B, s host.Session, n int) {
	b.Helper()
	user := json.RawMessage(`{"content":[{"type":"text","text":"please look at the file and tell me what it does"}]}`)
	asst := json.RawMessage(`{"text":"Reading it.","toolCalls":[{"id":"c1","name":"tool01","input":{"path":"a.go"}}]}`)
	tcall := json.RawMessage(`{"id":"c1","name":"tool01","input":{"path":"a.go"}}`)
	tres := json.RawMessage(`{"callId":"c1","name":"tool01","output":"package main\n\nfunc main() {}\n"}`)
	turn := 0
	for s.Len() < n {
		turn++
		for _, e := range []host.Event{
			{Type: host.TypeTurnStart, Data: json.RawMessage(fmt.Sprintf(`{"turn":%d}`, turn))},
			{Type: host.TypeStepStart, Data: json.RawMessage(fmt.Sprintf(`{"turn":%d,"step":1,"attempt":1}`, turn))},
			{Type: host.TypeUserMessage, Data: user},
			{Type: host.TypeAssistantMessage, Data: asst},
			{Type: host.TypeToolCall, Data: tcall},
			{Type: host.TypeToolResult, Data: tres},
			{Type: host.TypeStepEnd, Data: json.RawMessage(fmt.Sprintf(`{"turn":%d,"step":1,"attempt":1}`, turn))},
			{Type: host.TypeTurnEnd, Data: json.RawMessage(fmt.Sprintf(`{"turn":%d,"reason":"completed"}`, turn))},
		} {
			if _, err := s.Append(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkStep measures the host's own cost per step with a model that
// does no work: 10 sections, 20 tools, a 10k-event log.
//
//   - new-turn: one Steer → a one-step turn → idle (turn/start, step/start,
//     user/message, assistant/message, step/end, turn/end, goroutine
//     start and wake-up included).
//   - tool-step: one continuation step inside a long turn (step/start,
//     assistant/message with one call, tool/call, the tool, tool/result,
//     step/end).
func BenchmarkStep(b *testing.B) {
	b.Run("new-turn", func(b *testing.B) {
		a := benchAgent(b, &benchModel{})
		msg := userText("next")
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if err := a.Steer(msg); err != nil {
				b.Fatal(err)
			}
			if err := a.WaitIdle(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tool-step", func(b *testing.B) {
		m := &benchModel{}
		a := benchAgent(b, m)
		m.toolSteps.Store(int64(b.N))
		b.ReportAllocs()
		b.ResetTimer()
		if err := a.Steer(userText("go")); err != nil {
			b.Fatal(err)
		}
		if err := a.WaitIdle(context.Background()); err != nil {
			b.Fatal(err)
		}
	})
}
