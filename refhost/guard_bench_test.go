package refhost_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

type nopTool struct{}

func (nopTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: "nop", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (nopTool) Execute(context.Context, host.CallContext, json.RawMessage) (string, error) {
	return "ok", nil
}

// BenchmarkCallTool measures one tool call without guards and with one
// guard that lets it through: the guard chain's cost per call.
func BenchmarkCallTool(b *testing.B) {
	for _, guards := range []int{0, 1} {
		name := "no guard"
		if guards > 0 {
			name = "one guard"
		}
		b.Run(name, func(b *testing.B) {
			st := store.NewMemory()
			rt, err := refhost.New(refhost.Options{Store: st, Model: scripted.NewModel()})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := rt.AddTool(nopTool{}); err != nil {
				b.Fatal(err)
			}
			for range guards {
				allow := func(context.Context, host.CallContext, string, json.RawMessage) error { return nil }
				if _, err := rt.AddToolGuard(host.Guard{Name: "allow", Check: allow, Tools: []string{"nop"}}); err != nil {
					b.Fatal(err)
				}
			}
			sess, _ := st.Create("")
			a, err := rt.NewAgent("", sess)
			if err != nil {
				b.Fatal(err)
			}
			call := host.ToolCall{ID: "1", Name: "nop", Input: json.RawMessage(`{}`)}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if res := a.CallTool(ctx, call); res.IsError {
					b.Fatal(res.Output)
				}
			}
		})
	}
}
