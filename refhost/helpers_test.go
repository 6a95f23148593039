package refhost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// waitTimeout bounds every wait in the tests; nothing legitimate takes long.
const waitTimeout = 5 * time.Second

// fixture is a runtime over an in-memory store with a scripted model.
type fixture struct {
	t     *testing.T
	store *store.Memory
	model *scripted.Model
	rt    *refhost.Runtime
}

func newFixture(t *testing.T, steps ...scripted.Step) *fixture {
	t.Helper()
	return newFixtureOpts(t, refhost.Options{}, steps...)
}

func newFixtureOpts(t *testing.T, o refhost.Options, steps ...scripted.Step) *fixture {
	t.Helper()
	f := &fixture{t: t, store: store.NewMemory(), model: scripted.NewModel(steps...)}
	o.Store, o.Model = f.store, f.model
	rt, err := refhost.New(o)
	if err != nil {
		t.Fatal(err)
	}
	f.rt = rt
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		if err := rt.Stop(ctx); err != nil {
			t.Errorf("stop runtime: %v", err)
		}
	})
	return f
}

// agent creates a fresh session and binds an agent to it.
func (f *fixture) agent() *refhost.Agent {
	f.t.Helper()
	s, err := f.store.Create("")
	if err != nil {
		f.t.Fatal(err)
	}
	a, err := f.rt.NewAgent("", s)
	if err != nil {
		f.t.Fatal(err)
	}
	return a
}

// steer steers a user text and waits until the agent is idle again.
func (f *fixture) steer(a *refhost.Agent, text string) {
	f.t.Helper()
	steerWait(f.t, a, text)
}

// send steers a user text.
func send(t *testing.T, a *refhost.Agent, text string) {
	t.Helper()
	if err := a.Steer(userText(text)); err != nil {
		t.Fatal(err)
	}
}

// steerWait steers a user text and waits until the agent is idle again.
func steerWait(t *testing.T, a *refhost.Agent, text string) {
	t.Helper()
	send(t, a, text)
	waitIdle(t, a)
}

func waitIdle(t *testing.T, a *refhost.Agent) {
	t.Helper()
	within(t, a.WaitIdle)
}

// within runs f with a context bounded by waitTimeout and fails the test
// on its error.
func within(t *testing.T, f func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := f(ctx); err != nil {
		t.Fatal(err)
	}
}

func ctxTimeout(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

func userText(text string) host.Message {
	return host.Message{Content: []host.Block{host.TextBlock(text)}}
}

// concurrently has goroutines goroutines each send the messages
// "g<goroutine>-<i>" for i below each, in order, through send, and waits
// for them.
func concurrently(goroutines, each int, send func(i int, msg host.Message)) {
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				send(i, userText(fmt.Sprintf("g%d-%d", g, i)))
			}
		})
	}
	wg.Wait()
}

// types lists the event types of s's log.
func types(s host.Session) []string {
	var out []string
	for _, e := range s.Events().Slice() {
		out = append(out, e.Type)
	}
	return out
}

// payloads decodes the payloads of every event of type typ.
func payloads[T any](t *testing.T, s host.Session, typ string) []T {
	t.Helper()
	var out []T
	for _, e := range s.Events().Slice() {
		if e.Type != typ {
			continue
		}
		var v T
		if err := json.Unmarshal(e.Data, &v); err != nil {
			t.Fatalf("event %d (%s): %v", e.Seq, e.Type, err)
		}
		out = append(out, v)
	}
	return out
}

// lastTurnEnd returns the payload of the last "turn/end".
func lastTurnEnd(t *testing.T, s host.Session) host.TurnEnd {
	t.Helper()
	ends := payloads[host.TurnEnd](t, s, host.TypeTurnEnd)
	if len(ends) == 0 {
		t.Fatalf("no turn/end in %v", types(s))
	}
	return ends[len(ends)-1]
}

// echoTool returns its input's "text" field, or fails with it when "fail"
// is set.
type echoTool struct{ name string }

func (e echoTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: e.name, Description: "echoes", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (e echoTool) Execute(_ context.Context, _ host.CallContext, input json.RawMessage) (string, error) {
	var in struct {
		Text string `json:"text"`
		Fail string `json:"fail"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return "", err
	}
	if in.Fail != "" {
		return "", errorString(in.Fail)
	}
	return in.Text, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

// funcTool runs fn.
type funcTool struct {
	name string
	fn   func(ctx context.Context, cc host.CallContext, input json.RawMessage) (string, error)
}

func (f funcTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: f.name, InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (f funcTool) Execute(ctx context.Context, cc host.CallContext, input json.RawMessage) (string, error) {
	return f.fn(ctx, cc, input)
}

func call(id, name, input string) host.ToolCall {
	return host.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
