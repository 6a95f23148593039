package hosttest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dshgo/planmode/host"
)

// GuardHarness is what [TestToolGuards] needs from a host under test.
type GuardHarness struct {
	// Guards is the host's guard chain.
	Guards host.ToolGuards
	// Tools is the host's tool registry.
	Tools host.Tools
	// Call runs one tool call the way the host runs a model's call (guards,
	// then the tool) and returns its result.
	Call func(ctx context.Context, name string, input json.RawMessage) host.ToolResult
	// Serve does what the host does when it starts serving an agent; it
	// must fail when a guard names an unregistered tool.
	Serve func() error
}

// TestToolGuards checks a host's [host.ToolGuards] implementation. newHarness
// returns a fresh host for each subtest.
func TestToolGuards(t *testing.T, newHarness func(t *testing.T) GuardHarness) {
	t.Run("a call no guard refuses runs the tool", func(t *testing.T) {
		h := newHarness(t)
		tool := addTool(t, h, "echo")
		allow := func(context.Context, host.CallContext, string, json.RawMessage) error { return nil }
		addGuard(t, h, host.Guard{Name: "allow", Check: allow})
		res := h.Call(context.Background(), "echo", json.RawMessage(`{}`))
		if res.IsError || tool.runs.Load() != 1 {
			t.Fatalf("result %+v after %d runs; want a successful run", res, tool.runs.Load())
		}
	})
	t.Run("a refused call never runs and is an is-error result naming the refusal", func(t *testing.T) {
		h := newHarness(t)
		tool := addTool(t, h, "write")
		refuse := func(_ context.Context, _ host.CallContext, name string, _ json.RawMessage) error {
			return errors.New("refused " + name)
		}
		addGuard(t, h, host.Guard{Name: "gate", Check: refuse, Tools: []string{"write"}})
		res := h.Call(context.Background(), "write", json.RawMessage(`{"x":1}`))
		if !res.IsError || res.Output != host.ToolErrorPrefix+"refused write" {
			t.Fatalf("result %+v; want is-error %q", res, host.ToolErrorPrefix+"refused write")
		}
		if n := tool.runs.Load(); n != 0 {
			t.Fatalf("the refused tool ran %d times", n)
		}
	})
	t.Run("guards see the tool name and input and run in registration order; the first refusal wins", func(t *testing.T) {
		h := newHarness(t)
		addTool(t, h, "t")
		var order []string
		var mu sync.Mutex
		mk := func(name string, refuse bool) host.ToolGuard {
			return func(_ context.Context, _ host.CallContext, tool string, input json.RawMessage) error {
				mu.Lock()
				order = append(order, name+":"+tool+":"+string(input))
				mu.Unlock()
				if refuse {
					return errors.New(name)
				}
				return nil
			}
		}
		addGuard(t, h, host.Guard{Name: "a", Check: mk("a", false)})
		addGuard(t, h, host.Guard{Name: "b", Check: mk("b", true)})
		addGuard(t, h, host.Guard{Name: "c", Check: mk("c", true)})
		res := h.Call(context.Background(), "t", json.RawMessage(`{"k":2}`))
		if !res.IsError || !strings.HasSuffix(res.Output, "b") {
			t.Fatalf("result %+v; want b's refusal", res)
		}
		want := []string{`a:t:{"k":2}`, `b:t:{"k":2}`}
		if strings.Join(order, " ") != strings.Join(want, " ") {
			t.Fatalf("guards ran %v; want %v", order, want)
		}
	})
	t.Run("unregistering a guard lets calls through again", func(t *testing.T) {
		h := newHarness(t)
		tool := addTool(t, h, "t")
		undo, err := h.Guards.AddToolGuard(host.Guard{Name: "no", Check: func(context.Context, host.CallContext, string, json.RawMessage) error {
			return errors.New("no")
		}})
		if err != nil {
			t.Fatal(err)
		}
		undo()
		undo() // safe twice
		if res := h.Call(context.Background(), "t", json.RawMessage(`{}`)); res.IsError || tool.runs.Load() != 1 {
			t.Fatalf("result %+v", res)
		}
	})
	t.Run("a guard name already taken is ErrDuplicate", func(t *testing.T) {
		h := newHarness(t)
		g := host.Guard{Name: "g", Check: func(context.Context, host.CallContext, string, json.RawMessage) error { return nil }}
		addGuard(t, h, g)
		if _, err := h.Guards.AddToolGuard(g); !errors.Is(err, host.ErrDuplicate) {
			t.Fatalf("second registration: %v; want ErrDuplicate", err)
		}
	})
	t.Run("serving fails naming a guarded tool that is not registered", func(t *testing.T) {
		h := newHarness(t)
		addTool(t, h, "known")
		ok := func(context.Context, host.CallContext, string, json.RawMessage) error { return nil }
		addGuard(t, h, host.Guard{Name: "g", Check: ok, Tools: []string{"known", "missing_tool"}})
		err := h.Serve()
		if !errors.Is(err, host.ErrUnknownGuardedTool) || !strings.Contains(err.Error(), "missing_tool") || strings.Contains(err.Error(), "known,") {
			t.Fatalf("serve: %v; want ErrUnknownGuardedTool naming missing_tool only", err)
		}
		addTool(t, h, "missing_tool")
		if err := h.Serve(); err != nil {
			t.Fatalf("serve once the tool is registered: %v", err)
		}
	})
	t.Run("concurrent calls are all guarded", func(t *testing.T) {
		h := newHarness(t)
		tool := addTool(t, h, "t")
		var seen atomic.Int64
		addGuard(t, h, host.Guard{Name: "count", Check: func(_ context.Context, _ host.CallContext, _ string, input json.RawMessage) error {
			seen.Add(1)
			if string(input) == `{"deny":true}` {
				return errors.New("denied")
			}
			return nil
		}})
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				in := `{}`
				if i%2 == 0 {
					in = `{"deny":true}`
				}
				h.Call(context.Background(), "t", json.RawMessage(in))
			}()
		}
		wg.Wait()
		if seen.Load() != 16 || tool.runs.Load() != 8 {
			t.Fatalf("guard saw %d calls, tool ran %d times; want 16 and 8", seen.Load(), tool.runs.Load())
		}
	})
}

// countingTool counts its runs.
type countingTool struct {
	name string
	runs atomic.Int64
}

func (c *countingTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: c.name, Description: "counts its runs", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (c *countingTool) Execute(context.Context, host.CallContext, json.RawMessage) (string, error) {
	c.runs.Add(1)
	return "ran", nil
}

func addTool(t *testing.T, h GuardHarness, name string) *countingTool {
	t.Helper()
	tool := &countingTool{name: name}
	undo, err := h.Tools.AddTool(tool)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(undo)
	return tool
}

func addGuard(t *testing.T, h GuardHarness, g host.Guard) {
	t.Helper()
	undo, err := h.Guards.AddToolGuard(g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(undo)
}
