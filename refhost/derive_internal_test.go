package refhost

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

type nopModel struct{}

func (nopModel) Generate(context.Context, Request) (Response, error) {
	return Response{Text: "ok"}, nil
}

type nopTool struct{ name string }

func (n nopTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: n.name, InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (nopTool) Execute(context.Context, host.CallContext, json.RawMessage) (string, error) {
	return "", nil
}

// BenchmarkDerive measures deriving one request (prompt, catalog,
// transcript, header check) with 10 sections, 20 tools and a 10k-event log,
// after one event was appended: the incremental part of a step, with no
// model call and no appends of its own.
func BenchmarkDerive(b *testing.B) {
	st := store.NewMemory()
	r, err := New(Options{Store: st, Model: nopModel{}})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 10 {
		text := strings.Repeat(fmt.Sprintf("Section %d. ", i), 20)
		if _, err := r.AddSection(host.Section{Name: fmt.Sprint("s", i), Text: func(host.AssembleContext) string { return text }}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 20 {
		if _, err := r.AddTool(nopTool{name: fmt.Sprint("t", i)}); err != nil {
			b.Fatal(err)
		}
	}
	s, err := st.Create("")
	if err != nil {
		b.Fatal(err)
	}
	user := host.Event{Type: host.TypeUserMessage, Data: json.RawMessage(`{"content":[{"type":"text","text":"hello"}]}`)}
	for range 10_000 {
		if _, err := s.Append(user); err != nil {
			b.Fatal(err)
		}
	}
	a, err := newAgent(r, "a", s)
	if err != nil {
		b.Fatal(err)
	}
	_, h := a.derive()
	a.header, a.resume = h, false // as if logged: later derives find nothing changed
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if _, err := s.Append(host.Event{Type: host.TypeStepStart, Data: json.RawMessage(`{}`)}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		req, h := a.derive()
		if len(req.Messages) != 10_000 || len(req.Tools) != 20 || h != nil {
			b.Fatalf("request: %d messages, %d tools, header %v", len(req.Messages), len(req.Tools), h)
		}
	}
}
