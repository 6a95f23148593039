package todo_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
	"github.com/dshgo/planmode/todo"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tools is a minimal tool registry.
type tools struct {
	mu     sync.Mutex
	byName map[string]host.Tool
}

func newTools() *tools { return &tools{byName: map[string]host.Tool{}} }

func (r *tools) AddTool(t host.Tool) (func(), error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := t.Definition().Name
	if _, dup := r.byName[name]; dup {
		return nil, host.ErrDuplicate
	}
	r.byName[name] = t
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.byName, name)
	}, nil
}

func (r *tools) get(t testing.TB, name string) host.Tool {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	tool, ok := r.byName[name]
	if !ok {
		t.Fatalf("tool %s is not registered", name)
	}
	return tool
}

// agent is an agent with an ID and no session: the todo tools need no more.
type agent struct{ id string }

func (a agent) ID() string                { return a.id }
func (a agent) Session() host.Session     { return nil }
func (a agent) Status() host.AgentStatus  { return host.StatusIdle }
func (a agent) Steer(host.Message) error  { return nil }
func (a agent) Inject(host.Message) error { return nil }

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fixture is a started plugin over a document store.
type fixture struct {
	tools *tools
	docs  host.Documents
	clock *clock
	p     *todo.Plugin
}

func start(t testing.TB, docs host.Documents, cfg todo.Config) *fixture {
	t.Helper()
	f := &fixture{tools: newTools(), docs: docs, clock: newClock()}
	res, err := todo.New(todo.Params{Config: cfg, Tools: f.tools, Documents: docs, Now: f.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	f.p = res.Plugin
	if err := f.p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.p.Stop(context.Background()) })
	return f
}

func newFixture(t testing.TB) *fixture {
	return start(t, store.NewMemoryDocuments(), todo.DefaultConfig())
}

// call runs a tool for agent id with input.
func (f *fixture) call(t testing.TB, id, tool, input string) (string, error) {
	t.Helper()
	return f.tools.get(t, tool).Execute(context.Background(), host.CallContext{Agent: agent{id}, CallID: "c"}, json.RawMessage(input))
}

// write runs todo_write and returns the stored list.
func (f *fixture) write(t testing.TB, id, input string) []todo.Item {
	t.Helper()
	out, err := f.call(t, id, todo.WriteToolName, input)
	if err != nil {
		t.Fatalf("todo_write %s: %v", input, err)
	}
	l, err := todo.ParseList([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	return l.Todos
}

// read runs todo_read.
func (f *fixture) read(t testing.TB, id string) []todo.Item {
	t.Helper()
	out, err := f.call(t, id, todo.ReadToolName, `{}`)
	if err != nil {
		t.Fatalf("todo_read: %v", err)
	}
	l, err := todo.ParseList([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	return l.Todos
}

// summary is "id:status" per item, for comparisons.
func summary(items []todo.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID + ":" + string(it.Status)
	}
	return out
}
