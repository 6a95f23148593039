package plansteps_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/dshgo/planmode/internal/e2etest"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// capture forwards tool registrations to the runtime and keeps the tools,
// so that tests can call them.
type capture struct {
	next host.Tools
	mu   sync.Mutex
	m    map[string]host.Tool
}

func (c *capture) AddTool(t host.Tool) (func(), error) {
	u, err := c.next.AddTool(t)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.m[t.Definition().Name] = t
	c.mu.Unlock()
	return u, nil
}

// env is a reference host with plan-mode and plan-steps started, one agent
// in plan mode and a scripted user.
type env struct {
	rt    *refhost.Runtime
	tools *capture
	user  *scripted.Provider
	ctl   *planmode.Controller
	steps *plansteps.Plugin
	agent *refhost.Agent
	sess  host.Session
	model *scripted.Model
}

func newEnv(t testing.TB, withQuestions bool) *env {
	t.Helper()
	mem := store.NewMemory()
	model := scripted.NewModel()
	rt, err := refhost.New(refhost.Options{Store: mem, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{rt: rt, tools: &capture{next: rt, m: map[string]host.Tool{}}, user: scripted.NewProvider(), model: model}
	unset, err := rt.Questions().SetProvider(e.user)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unset)
	var questions host.UserQuestions
	if withQuestions {
		questions = rt.Questions()
	}
	sres, err := plansteps.New(plansteps.Params{
		Config: plansteps.DefaultConfig(), Sections: rt, Tools: e.tools, Validators: mem, EventTypes: rt, Questions: questions,
	})
	if err != nil {
		t.Fatal(err)
	}
	pres, err := planmode.New(planmode.Params{
		Config: planmode.Config{Section: "PLAN POLICY"}, Sections: rt, Tools: e.tools, PreStep: rt, Validators: mem,
		EventTypes: rt, Questions: rt.Questions(), ExitExtensions: []planmode.ExitExtension{sres.Exit},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ctl, e.steps = pres.Controller, sres.Plugin
	ctx := context.Background()
	for _, start := range []func(context.Context) error{e.ctl.Start, e.steps.Start} {
		if err := start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = e.steps.Stop(ctx)
		_ = e.ctl.Stop(ctx)
		_ = rt.Stop(ctx)
	})
	e.sess, err = mem.Create("s1")
	if err != nil {
		t.Fatal(err)
	}
	e.agent, err = rt.NewAgent("agent", e.sess)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.ctl.Set(e.agent, true); err != nil {
		t.Fatal(err)
	}
	return e
}

// call runs a tool as the agent.
func (e *env) call(t testing.TB, name string, input any) (string, error) {
	t.Helper()
	e.tools.mu.Lock()
	tool := e.tools.m[name]
	e.tools.mu.Unlock()
	if tool == nil {
		t.Fatalf("tool %s is not registered", name)
	}
	raw, ok := input.(string)
	if !ok {
		b, err := json.Marshal(input)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	return tool.Execute(context.Background(), host.CallContext{Agent: e.agent, CallID: "call"}, json.RawMessage(raw))
}

// callOutcome runs a tool as call does, with the outcome it recorded.
func (e *env) callOutcome(t testing.TB, name string, input any) (outcome string, err error) {
	t.Helper()
	b, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	e.tools.mu.Lock()
	tool := e.tools.m[name]
	e.tools.mu.Unlock()
	ctx, recorded := host.RecordOutcome(context.Background())
	_, err = tool.Execute(ctx, host.CallContext{Agent: e.agent, CallID: "call"}, b)
	return recorded(), err
}

// mustCall runs a tool that must succeed.
func (e *env) mustCall(t testing.TB, name string, input any) string {
	t.Helper()
	out, err := e.call(t, name, input)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// approve answers the next question with its approving option.
func (e *env) approve(option string, id string) {
	e.user.QueueAnswers(host.Answer{QuestionID: id, Selected: []string{option}})
}

// present approves a plan through exit_plan_mode, entering plan mode again
// when an earlier exit left it (a pending exit is applied first, by a turn
// of one step).
func (e *env) present(t testing.TB, input map[string]any) string {
	t.Helper()
	if e.ctl.Get(e.agent).Pending != planmode.SelectionNone {
		e.model.Add(scripted.Step{Text: "ok"})
		if err := e.agent.Steer(host.Message{Content: []host.Block{host.TextBlock("go on")}}); err != nil {
			t.Fatal(err)
		}
		if err := e.agent.WaitIdle(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if !e.ctl.Get(e.agent).Active {
		if _, err := e.ctl.Set(e.agent, true); err != nil {
			t.Fatal(err)
		}
	}
	e.approve(e2etest.ReviewApprove, e2etest.ReviewQuestionID)
	return e.mustCall(t, planmode.ExitToolName, input)
}

// executing returns an env whose plan "Add retries", with stepsInput's
// steps, was approved: its steps are being carried out.
func executing(t testing.TB, withQuestions bool) *env {
	t.Helper()
	e := newEnv(t, withQuestions)
	e.present(t, map[string]any{"plan": "# Add retries", "steps": stepsInput()})
	return e
}

// state is the plugin's fold of the session.
func (e *env) state() plansteps.State { return e.steps.State(e.sess) }

// events returns the events of type typ.
func (e *env) events(typ string) []host.Event {
	var out []host.Event
	for _, ev := range e.sess.Events().Slice() {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

func scriptedReply(err error) scripted.Reply { return scripted.Reply{Err: err} }
