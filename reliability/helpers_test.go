package reliability_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

// The plugin's limits, as the docs state them.
const (
	maxPlanSize   = 256 << 10 // bytes of a plan put to review
	maxSectionLen = 64 << 10  // characters of the section text
)

// policy is the section text every test host configures.
const policy = "PLAN POLICY: explore read-only, then present a plan with exit_plan_mode."

// waitTimeout bounds every wait for an agent or a child process.
const waitTimeout = 20 * time.Second

// testHost is the plan-mode plugin running on the reference host.
type testHost struct {
	store    host.Store
	rt       *refhost.Runtime
	ctl      *planmode.Controller
	reviewer *reviewer
}

// hookFunc is an action a hook tool call runs inside an open turn.
type hookFunc func(ctx context.Context, a host.Agent) (string, error)

// startHost builds a runtime on st with model, starts a plan-mode
// controller on it (with the command registry and the user-question
// channel), attaches a reviewer and registers the noop and hook tools.
// Everything is stopped when the test ends.
func startHost(t testing.TB, st host.Store, model refhost.Model, hooks map[string]hookFunc) *testHost {
	t.Helper()
	rt, err := refhost.New(refhost.Options{Store: st, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		if err := rt.Stop(ctx); err != nil {
			t.Error(err)
		}
	})
	h := &testHost{store: st, rt: rt, reviewer: &reviewer{}}
	unset, err := rt.Questions().SetProvider(h.reviewer)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unset)
	for _, tool := range []host.Tool{noopTool{}, hookTool{hooks: hooks}} {
		if _, err := rt.AddTool(tool); err != nil {
			t.Fatal(err)
		}
	}
	h.ctl = startController(t, rt, st)
	return h
}

// startController starts a fresh plan-mode controller on rt, as a
// restarted process would.
func startController(t testing.TB, rt *refhost.Runtime, st host.Store) *planmode.Controller {
	t.Helper()
	return e2etest.Start(t, e2etest.Params(rt, st, policy))
}

// openDir opens a store on dir, closed when the test ends.
func openDir(t testing.TB, dir string, opts ...store.Option) *store.Dir {
	t.Helper()
	d, err := store.OpenDir(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// mustRuntime is a runtime on st whose model has nothing to say.
func mustRuntime(t testing.TB, st host.Store) *refhost.Runtime {
	t.Helper()
	rt, err := refhost.New(refhost.Options{Store: st, Model: scripted.NewModel()})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// newAgent binds a new agent to a new session id of the host's store.
func (h *testHost) newAgent(t testing.TB, id string) *refhost.Agent {
	t.Helper()
	sess, err := h.store.Create(id)
	if err != nil {
		t.Fatal(err)
	}
	return h.agentOn(t, sess)
}

// agentOn binds a new agent to sess.
func (h *testHost) agentOn(t testing.TB, sess host.Session) *refhost.Agent {
	t.Helper()
	a, err := h.rt.NewAgent("", sess)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// prompt steers text and waits until the agent is idle again.
func prompt(t testing.TB, a *refhost.Agent, text string) {
	t.Helper()
	if err := a.Steer(userText(text)); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, a)
}

func waitIdle(t testing.TB, a *refhost.Agent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := a.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
}

func userText(text string) host.Message {
	return host.Message{Content: []host.Block{host.TextBlock(text)}}
}

// reviewer is the user behind the question channel, the question stub of
// package hosttest: each Ask takes the next queued decision.
type reviewer struct{ hosttest.Questions }

func (r *reviewer) queue(ds ...func(req host.AskRequest) ([]host.Answer, error)) {
	for _, d := range ds {
		r.Reply(func(_ context.Context, req host.AskRequest) ([]host.Answer, error) { return d(req) })
	}
}

// asks returns how many requests the reviewer got.
func (r *reviewer) asks() int { return len(r.Requests()) }

// logAgent is a host.Agent over a session that never runs a turn: it lets
// a test ask the controller about a session before any loop touches it.
type logAgent struct{ sess host.Session }

func (a logAgent) ID() string                { return "log-" + a.sess.ID() }
func (a logAgent) Session() host.Session     { return a.sess }
func (a logAgent) Status() host.AgentStatus  { return host.StatusIdle }
func (a logAgent) Steer(host.Message) error  { return errors.New("logAgent: no loop") }
func (a logAgent) Inject(host.Message) error { return errors.New("logAgent: no loop") }

// noopTool answers "ok"; the scripted models call it to force a
// continuation step.
type noopTool struct{}

func (noopTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: "noop", Description: "Does nothing.", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (noopTool) Execute(context.Context, host.CallContext, json.RawMessage) (string, error) {
	return "ok", nil
}

// hookTool runs a named test action while a turn is open: its input is
// {"do": NAME}.
type hookTool struct{ hooks map[string]hookFunc }

func (hookTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: "hook", Description: "Runs a test action.", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (h hookTool) Execute(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	var in struct {
		Do string `json:"do"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return "", err
	}
	f, ok := h.hooks[in.Do]
	if !ok {
		return "", fmt.Errorf("hook %q: not defined", in.Do)
	}
	return f(ctx, call.Agent)
}

// hookCall is a tool call of the hook tool.
func hookCall(id, do string) host.ToolCall {
	return host.ToolCall{ID: id, Name: "hook", Input: json.RawMessage(fmt.Sprintf(`{"do":%q}`, do))}
}

// modeOf decodes a "plan/mode" payload the way the spec defines it.
func modeOf(t testing.TB, e host.Event) bool {
	t.Helper()
	var p struct {
		Active *bool `json:"active"`
	}
	if err := json.Unmarshal(e.Data, &p); err != nil || p.Active == nil {
		t.Fatalf("event %d: plan/mode payload %s is not {active: bool}", e.Seq, e.Data)
	}
	return *p.Active
}

var _ host.Agent = logAgent{}

// turnOpen reports whether a turn is open after events (e2etest.TurnOpen).
func turnOpen(events []host.Event) bool { return e2etest.TurnOpen(host.LogOf(events), len(events)) }

// argOff is the argument of "/plan" that selects the default mode.
const argOff = "off"
