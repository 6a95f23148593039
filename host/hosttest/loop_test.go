package hosttest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/refhosttest"
	"github.com/dshgo/planmode/store"
)

// brokenLoopEnv names the broken host a child process of
// TestLoopFailsBrokenHosts runs the suite against.
const brokenLoopEnv = "HOSTTEST_BROKEN_LOOP"

// brokenLoops each break one rule of the host loop; wantFail are the
// subtests that must catch it and rules the words their failures must
// hold.
var brokenLoops = []struct {
	name     string
	breakIt  breakage
	wantFail []string
	rules    []string
}{
	{"results not logged", breakage{dropTools: true}, []string{
		"tool/call_is_logged_before_the_tool_runs_and_tool/result_after",
		"an_approved_exit_leaves_plan_mode_at_the_next_step",
	}, []string{"an approval counts only once its tool/result is in the log", `tool call "hosttest-call-1" has 0 tool/result events after it`}},
	{"notices without their source", breakage{dropSource: true}, []string{
		"a_notice_is_logged_with_the_Source_given_and_reaches_the_model",
	}, []string{"log the messages of a pre-step decision with the Source given"}},
	{"pre-step skipped on retries", breakage{skipRetries: true}, []string{
		"the_pre-step_chain_runs_for_retries_too",
	}, []string{"run the pre-step chain for every step"}},
	{"commands not logged", breakage{dropCommands: true}, []string{
		"a_/plan_run_during_a_turn_is_rebuilt_from_the_log_after_a_restart",
	}, []string{"log command/run with the raw arguments"}},
}

// TestLoopFailsBrokenHosts runs the suite, in a child process, against
// hosts that each break one rule, and checks that the subtests stating
// that rule fail and name it.
func TestLoopFailsBrokenHosts(t *testing.T) {
	if name := os.Getenv(brokenLoopEnv); name != "" {
		for _, b := range brokenLoops {
			if b.name == name {
				hosttest.TestLoop(t, func(testing.TB) hosttest.LoopHarness {
					return &refLoop{st: store.NewMemory(), broken: b.breakIt}
				})
				return
			}
		}
		t.Fatalf("%s=%q: no such broken host", brokenLoopEnv, name)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range brokenLoops {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(exe, "-test.run=^TestLoopFailsBrokenHosts$", "-test.v")
			cmd.Env = append(os.Environ(), brokenLoopEnv+"="+b.name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a host whose %s:\n%s", b.name, out)
			}
			for _, sub := range b.wantFail {
				if want := "--- FAIL: TestLoopFailsBrokenHosts/" + sub + " "; !strings.Contains(string(out), want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			for _, rule := range b.rules {
				if !strings.Contains(string(out), rule) {
					t.Errorf("output does not name the rule %q:\n%s", rule, out)
				}
			}
		})
	}
}

// TestLoopRefhost runs the suite against the reference host that the
// broken hosts are made from, so a failure above is the breakage's.
func TestLoopRefhost(t *testing.T) {
	hosttest.TestLoop(t, func(testing.TB) hosttest.LoopHarness { return &refLoop{st: store.NewMemory()} })
}

// breakage says which rule a refLoop host breaks.
type breakage struct {
	dropTools    bool // tool/call and tool/result are never logged
	dropSource   bool // user/message is logged without its Source
	skipRetries  bool // plan mode's pre-step listener is skipped on retries
	dropCommands bool // command/run and command/done are never logged; the front end lands a pending mode after each turn
}

// refLoop builds refhost hosts on one store, broken as it says.
type refLoop struct {
	st     host.Store
	id     string
	broken breakage
}

func (h *refLoop) Open(t testing.TB, cfg hosttest.LoopConfig) hosttest.LoopHost {
	rt, err := refhost.New(refhost.Options{Store: h.st, Model: refhosttest.LoopModel(cfg.Model)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.AddRequestErrorListener("retry", func(context.Context, refhost.RequestError) bool { return true }); err != nil {
		t.Fatal(err)
	}
	var chain host.PreStepChain = rt
	if h.broken.skipRetries {
		chain = skipRetries{rt}
	}
	res, err := planmode.New(planmode.Params{Config: cfg.Plan, Sections: rt, Tools: rt, PreStep: chain,
		Validators: h.st, EventTypes: rt, Commands: rt, Questions: rt.Questions()})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Controller.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	unset, err := rt.Questions().SetProvider(cfg.User)
	if err != nil {
		t.Fatal(err)
	}
	var sess host.Session
	if h.id == "" {
		sess, err = h.st.Create("")
		h.id = sess.ID()
	} else {
		sess, err = h.st.Open(h.id)
	}
	if err != nil {
		t.Fatal(err)
	}
	if h.broken.dropTools || h.broken.dropSource || h.broken.dropCommands {
		sess = &brokenLog{Session: sess, breakage: h.broken}
	}
	a, err := rt.NewAgent("", sess)
	if err != nil {
		t.Fatal(err)
	}
	return &refLoopHost{rt: rt, plan: res.Controller, agent: a, st: h.st, unset: unset, land: h.broken.dropCommands}
}

type refLoopHost struct {
	rt    *refhost.Runtime
	plan  *planmode.Controller
	agent *refhost.Agent
	st    host.Store
	unset func()
	land  bool // LandPending after each turn
}

func (h *refLoopHost) Plan() *planmode.Controller  { return h.plan }
func (h *refLoopHost) Agent() host.Agent           { return h.agent }
func (h *refLoopHost) Validators() host.Validators { return h.st }

func (h *refLoopHost) Send(ctx context.Context, text string) error {
	if err := h.agent.Steer(host.Message{Content: []host.Block{host.TextBlock(text)}}); err != nil {
		return err
	}
	if err := h.agent.WaitIdle(ctx); err == nil {
		if h.land {
			_, err = h.plan.LandPending(h.agent)
		}
		return err
	}
	h.agent.Cancel()
	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return h.agent.WaitIdle(wctx)
}

func (h *refLoopHost) Command(ctx context.Context, line string) error {
	_, _, err := h.rt.Execute(ctx, h.agent, line, nil)
	return err
}

func (h *refLoopHost) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := h.agent.Stop(ctx)
	h.unset()
	if e := h.plan.Stop(ctx); err == nil {
		err = e
	}
	if e := h.rt.Stop(ctx); err == nil {
		err = e
	}
	return err
}

// skipRetries is a pre-step chain that skips its listeners on retries.
type skipRetries struct{ host.PreStepChain }

func (s skipRetries) AddPreStep(name string, l host.PreStepListener, prepend bool) (func(), error) {
	return s.PreStepChain.AddPreStep(name, func(ctx context.Context, st host.Step, next host.PreStepNext) host.Decision {
		if st.Attempt > 1 {
			return next(ctx, st)
		}
		return l(ctx, st, next)
	}, prepend)
}

// brokenLog is a session that drops tool or command events, or message
// sources.
type brokenLog struct {
	host.Session
	breakage
}

func (b *brokenLog) Append(e host.Event) (host.Event, error) {
	e, ok := b.change(e)
	if !ok {
		return e, nil
	}
	return b.Session.Append(e)
}

func (b *brokenLog) AppendIf(e host.Event, cond func() bool) (host.Event, bool, error) {
	e, ok := b.change(e)
	if !ok {
		return e, cond(), nil
	}
	return b.Session.AppendIf(e, cond)
}

// change returns the event to append, and false when it is dropped.
func (b *brokenLog) change(e host.Event) (host.Event, bool) {
	switch {
	case b.dropTools && (e.Type == host.TypeToolCall || e.Type == host.TypeToolResult):
		return e, false
	case b.dropCommands && (e.Type == host.TypeCommandRun || e.Type == host.TypeCommandDone):
		return e, false
	case b.dropSource && e.Type == host.TypeUserMessage:
		e.Source = nil
	}
	return e, true
}
