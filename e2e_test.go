package planmode_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

// e2e is the plugin running on the reference host with a scripted model.
type e2e struct {
	t     *testing.T
	store host.Store
	model *scripted.Model
	rt    *refhost.Runtime
	c     *planmode.Controller
	warns *warnCounter
}

func newE2E(t *testing.T, st host.Store, steps ...scripted.Step) *e2e {
	t.Helper()
	if st == nil {
		st = store.NewMemory()
	}
	e := &e2e{t: t, store: st, model: scripted.NewModel(steps...), warns: &warnCounter{}}
	rt, err := refhost.New(refhost.Options{Store: st, Model: e.model})
	if err != nil {
		t.Fatal(err)
	}
	e.rt = rt
	t.Cleanup(func() {
		if err := rt.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	e.startPlugin()
	return e
}

// startPlugin starts a fresh controller on the runtime, as a reload or a
// restarted process would.
func (e *e2e) startPlugin() {
	e.t.Helper()
	p := e2etest.Params(e.rt, e.store, policy)
	p.Logger = slog.New(e.warns)
	e.c = e2etest.Start(e.t, p)
}

func (e *e2e) stopPlugin() {
	e.t.Helper()
	if err := e.c.Stop(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

func (e *e2e) agent() *refhost.Agent {
	e.t.Helper()
	sess, err := e.store.Create("")
	if err != nil {
		e.t.Fatal(err)
	}
	return e.agentOn(sess)
}

func (e *e2e) agentOn(sess host.Session) *refhost.Agent {
	e.t.Helper()
	a, err := e.rt.NewAgent("", sess)
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

// prompt steers text and waits for the turn to end.
func (e *e2e) prompt(a *refhost.Agent, text string) {
	e.t.Helper()
	if err := a.Steer(host.Message{Content: []host.Block{host.TextBlock(text)}}); err != nil {
		e.t.Fatal(err)
	}
	e.waitIdle(a)
}

func (e *e2e) waitIdle(a *refhost.Agent) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.WaitIdle(ctx); err != nil {
		e.t.Fatal(err)
	}
}

// request returns the i-th request the model received (0-based).
func (e *e2e) request(i int) refhost.Request {
	e.t.Helper()
	reqs := e.model.Requests()
	if i >= len(reqs) {
		e.t.Fatalf("the model got %d requests, want request %d", len(reqs), i)
	}
	return reqs[i]
}

// planned reports whether a request carried the plan:policy section.
func planned(r refhost.Request) bool {
	return slices.Contains(r.Sections, planmode.SectionName) && strings.Contains(r.System, policy)
}

// noticeTexts returns the notices a request's transcript carries.
func noticeTexts(r refhost.Request) []string {
	var out []string
	for _, m := range r.Messages {
		for _, b := range m.Content {
			if b.Text == planmode.NoticeEntered || b.Text == planmode.NoticeLeft {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

// startApp starts the reference host on a memory store with model and
// plan mode from opts in one fx application, and returns it with an agent
// on a new session.
func startApp(t *testing.T, model refhost.Model, opts ...fx.Option) (*fxtest.App, *planmode.Controller, *refhost.Runtime, *refhost.Agent) {
	t.Helper()
	var (
		c  *planmode.Controller
		rt *refhost.Runtime
		st host.Store
	)
	app := fxtest.New(t, append([]fx.Option{
		fx.Provide(
			func() host.Store { return store.NewMemory() },
			func() refhost.Model { return model },
		),
		refhost.Module,
		fx.Populate(&c, &rt, &st),
	}, opts...)...)
	app.RequireStart()
	sess, err := st.Create("")
	if err != nil {
		t.Fatal(err)
	}
	a, err := rt.NewAgent("", sess)
	if err != nil {
		t.Fatal(err)
	}
	return app, c, rt, a
}

// openDir opens a store on dir, closed when the test ends.
func openDir(t *testing.T, dir string) *store.Dir {
	t.Helper()
	st, err := store.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// noopTool is a tool the scripted model can call to force a continuation
// step.
type noopTool struct{}

func (noopTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: "noop", Description: "does nothing", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (noopTool) Execute(context.Context, host.CallContext, json.RawMessage) (string, error) {
	return "ok", nil
}

// addNoop registers noopTool with the runtime.
func (e *e2e) addNoop() {
	e.t.Helper()
	if _, err := e.rt.AddTool(noopTool{}); err != nil {
		e.t.Fatal(err)
	}
}

func callNoop(id string) []host.ToolCall {
	return []host.ToolCall{{ID: id, Name: "noop", Input: json.RawMessage(`{}`)}}
}

func TestE2ECommitBetweenTurnsWithNotice(t *testing.T) {
	e := newE2E(t, nil, scripted.Step{Text: "hello"}, scripted.Step{Text: "planning"})
	a := e.agent()
	e.prompt(a, "hi")
	if planned(e.request(0)) {
		t.Fatal("the first request carried plan guidance")
	}

	if got := set(t, e.c, a, true); got != planmode.Committed {
		t.Fatalf("Set = %v, want committed", got)
	}
	e.prompt(a, "now plan")
	r := e.request(1)
	if !planned(r) {
		t.Fatalf("sections = %v, want %s", r.Sections, planmode.SectionName)
	}
	if got := noticeTexts(r); !slices.Equal(got, []string{planmode.NoticeEntered}) {
		t.Fatalf("notices in the transcript = %q, want the entered notice", got)
	}
}

func TestE2ENoNoticeBeforeFirstHeader(t *testing.T) {
	e := newE2E(t, nil, scripted.Step{Text: "planning"})
	a := e.agent()
	set(t, e.c, a, true)
	e.prompt(a, "plan it")
	r := e.request(0)
	if !planned(r) {
		t.Fatal("the first request lacks plan guidance")
	}
	if got := noticeTexts(r); len(got) != 0 {
		t.Fatalf("notices = %q, want none before the first header", got)
	}
}

func TestE2EQueueInOpenTurnLandsAtNextStep(t *testing.T) {
	var a *refhost.Agent
	var e *e2e
	e = newE2E(t, nil,
		scripted.Step{Respond: func(context.Context, refhost.Request) (refhost.Response, error) {
			got, err := e.c.Set(a, true)
			if err != nil || got != planmode.Queued {
				return refhost.Response{}, errors.Join(err, errors.New("Set did not queue: "+got.String()))
			}
			return refhost.Response{ToolCalls: callNoop("c1")}, nil
		}},
		scripted.Step{Text: "now planning"},
	)
	e.addNoop()
	a = e.agent()
	e.prompt(a, "go")
	if te := e2etest.LastTurnEnd(t, a.Session().Events()); te.Reason != host.TurnCompleted {
		t.Fatalf("turn ended %s: %s", te.Reason, te.Error)
	}
	if planned(e.request(0)) || !planned(e.request(1)) {
		t.Fatal("want plan guidance from the step after the selection, not before")
	}
	if got := noticeTexts(e.request(1)); !slices.Equal(got, []string{planmode.NoticeEntered}) {
		t.Fatalf("notices = %q, want the entered notice", got)
	}
	if !reflect.DeepEqual(e.request(0).Tools, e.request(1).Tools) {
		t.Fatal("entering plan mode changed the tool catalog")
	}
	wantState(t, e.c, a, planmode.State{Active: true})
}

func TestE2ERetryPicksUpSelectionMadeAtErrorSettlement(t *testing.T) {
	e := newE2E(t, nil, scripted.Step{Err: errors.New("overloaded")}, scripted.Step{Text: "planning"})
	a := e.agent()
	if _, err := e.rt.AddRequestErrorListener("select-plan", func(ctx context.Context, re refhost.RequestError) bool {
		if _, err := e.c.Set(re.Agent, true); err != nil {
			t.Error(err)
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	e.prompt(a, "go")
	if planned(e.request(0)) || !planned(e.request(1)) {
		t.Fatal("the retry did not pick up the selection made while the error settled")
	}
}

func TestE2ERejectedAndCancelledStepsLeaveSelectionPending(t *testing.T) {
	tests := []struct {
		name       string
		gate       host.PreStepListener
		wantReason host.TurnEndReason
	}{
		{
			name: "a rejected step",
			gate: func(context.Context, host.Step, host.PreStepNext) host.Decision {
				return host.Reject("held by the test")
			},
			wantReason: host.TurnBlocked,
		},
		{
			name: "a cancelled step",
			gate: func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
				s.Agent.(*refhost.Agent).Cancel()
				<-ctx.Done()
				return next(ctx, s) // accepted, but cancelled
			},
			wantReason: host.TurnCancelled,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name+" appends nothing", func(t *testing.T) {
			var (
				a      *refhost.Agent
				e      *e2e
				closed atomic.Bool
			)
			e = newE2E(t, nil,
				scripted.Step{Respond: func(context.Context, refhost.Request) (refhost.Response, error) {
					if _, err := e.c.Set(a, true); err != nil {
						return refhost.Response{}, err
					}
					closed.Store(true)
					return refhost.Response{ToolCalls: callNoop("c1")}, nil
				}},
				scripted.Step{Text: "planning"},
			)
			e.addNoop()
			if _, err := e.rt.AddPreStep("gate", func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
				if closed.Load() {
					return tt.gate(ctx, s, next)
				}
				return next(ctx, s)
			}, false); err != nil {
				t.Fatal(err)
			}
			a = e.agent()
			e.prompt(a, "go")
			if te := e2etest.LastTurnEnd(t, a.Session().Events()); te.Reason != tt.wantReason {
				t.Fatalf("turn ended %s, want %s", te.Reason, tt.wantReason)
			}
			if got := modes(t, a.Session(), 0); len(got) != 0 {
				t.Fatalf("plan/mode events = %v, want none", got)
			}
			wantState(t, e.c, a, planmode.State{Pending: planmode.SelectionActive})

			closed.Store(false)
			e.prompt(a, "again")
			if !planned(e.request(1)) {
				t.Fatal("the pending selection did not land at the next accepted step")
			}
			wantState(t, e.c, a, planmode.State{Active: true})
		})
	}
}

func TestE2EAppendFailureContainedThenConverging(t *testing.T) {
	var (
		a *refhost.Agent
		e *e2e
	)
	e = newE2E(t, nil,
		scripted.Step{Respond: func(context.Context, refhost.Request) (refhost.Response, error) {
			if _, err := e.c.Set(a, true); err != nil {
				return refhost.Response{}, err
			}
			return refhost.Response{ToolCalls: callNoop("c1")}, nil
		}},
		scripted.Step{ToolCalls: callNoop("c2")},
		scripted.Step{Text: "done"},
		scripted.Step{Text: "planning"},
	)
	e.addNoop()
	a = e.agent()
	undo, err := e.store.AddValidator("test-refuse-plan-mode", func(ev host.Event) error {
		if ev.Type == planmode.EventPlanMode {
			return errAppendRefused
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The selection is queued in the first step; the next two accepted
	// steps fail to append it.
	e.prompt(a, "go")
	if te := e2etest.LastTurnEnd(t, a.Session().Events()); te.Reason != host.TurnCompleted {
		t.Fatalf("the append failure broke the turn: %s %s", te.Reason, te.Error)
	}
	if got := e.warns.count(); got != 1 {
		t.Fatalf("warnings = %d, want 1", got)
	}
	if planned(e.request(1)) || planned(e.request(2)) {
		t.Fatal("plan guidance without a logged plan/mode")
	}
	wantState(t, e.c, a, planmode.State{Pending: planmode.SelectionActive})

	undo()
	e.prompt(a, "again")
	if !planned(e.request(3)) {
		t.Fatal("the selection did not land once appends worked again")
	}
	wantState(t, e.c, a, planmode.State{Active: true})
}

func TestE2EForkAndReopenRestoreState(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	st := openDir(t, dir)
	e := newE2E(t, st, scripted.Step{Text: "one"}, scripted.Step{Text: "forked"})
	a := e.agent()
	set(t, e.c, a, true)
	e.prompt(a, "hi")

	fork, err := a.Session().Fork(a.Session().Len())
	if err != nil {
		t.Fatal(err)
	}
	fa := e.agentOn(fork)
	wantState(t, e.c, fa, planmode.State{Active: true})
	e.prompt(fa, "continue in the fork")
	if !planned(e.request(1)) {
		t.Fatal("the fork's request lacks plan guidance")
	}
	id := a.Session().ID()
	if err := e.rt.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.stopPlugin()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	// A new process: a new store on the same directory, host and plugin.
	st2 := openDir(t, dir)
	e2 := newE2E(t, st2, scripted.Step{Text: "resumed"})
	sess, err := st2.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	ra := e2.agentOn(sess)
	wantState(t, e2.c, ra, planmode.State{Active: true})
	e2.prompt(ra, "resume")
	if !planned(e2.request(0)) {
		t.Fatal("the resumed request lacks plan guidance")
	}
}

func TestE2ECompactionKeepsState(t *testing.T) {
	e := newE2E(t, nil, scripted.Step{Text: "one"}, scripted.Step{Text: "two"})
	a := e.agent()
	set(t, e.c, a, true)
	e.prompt(a, "hi")
	must(appendJSON(a.Session(), host.TypeCompactionSummary, nil, host.CompactionSummary{Summary: "we were planning"}))
	e.prompt(a, "after compaction")
	r := e.request(1)
	if !planned(r) {
		t.Fatal("compaction lost plan mode")
	}
	if len(r.Messages) == 0 || !strings.Contains(r.Messages[0].Text, "we were planning") {
		t.Fatalf("transcript does not restart at the summary: %+v", r.Messages)
	}
}

func TestE2ERestartSeedsPendingFromCompletedPlanCommand(t *testing.T) {
	release := make(chan struct{})
	e := newE2E(t, nil,
		scripted.Step{Respond: func(ctx context.Context, _ refhost.Request) (refhost.Response, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return refhost.Response{}, ctx.Err()
			}
			return refhost.Response{ToolCalls: callNoop("c1")}, nil
		}},
		scripted.Step{Text: "planning"},
	)
	e.addNoop()
	a := e.agent()
	if err := a.Steer(host.Message{Content: []host.Block{host.TextBlock("go")}}); err != nil {
		t.Fatal(err)
	}
	if err := e.model.WaitCalls(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	// "/plan" completes while the turn is open, as the host logs it; then
	// the plugin is reloaded before the next step.
	must(appendJSON(a.Session(), host.TypeCommandRun, nil, host.CommandRun{ID: "r1", Name: planmode.CommandName}))
	set(t, e.c, a, true)
	must(appendJSON(a.Session(), host.TypeCommandDone, nil, host.CommandDone{ID: "r1", OK: true}))
	e.stopPlugin()
	e.startPlugin()
	wantState(t, e.c, a, planmode.State{Pending: planmode.SelectionActive})

	close(release)
	e.waitIdle(a)
	if !planned(e.request(1)) {
		t.Fatal("the seeded selection did not land at the next step")
	}
	wantState(t, e.c, a, planmode.State{Active: true})
}

func TestE2EPayloadCheckOnOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	st := openDir(t, dir)
	sess, err := st.Create("bad")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Append(ev(planmode.EventPlanMode, `{"active":"yes"}`)); err != nil {
		t.Fatal(err) // no plugin yet: nothing checks it
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2 := openDir(t, dir)
	newE2E(t, st2)
	_, err = st2.Open("bad")
	if !errors.Is(err, planmode.ErrBadPayload) || !strings.Contains(err.Error(), `active is "yes"`) {
		t.Fatalf("Open error = %v, want the payload check naming the value", err)
	}
}

func TestE2EModuleLifecycleThroughDeployment(t *testing.T) {
	d, err := deploy.Parse("deploy.yaml", []byte("plugins:\n  plan-mode:\n    section: |\n      "+policy), planmode.DeployPlugin())
	if err != nil {
		t.Fatal(err)
	}
	app, c, rt, a := startApp(t, scripted.NewModel(scripted.Step{Text: "planning"}), d.Option())
	sess := a.Session()
	set(t, c, a, true)
	if p := rt.Assemble(host.AssembleContext{Agent: a}); !slices.Contains(p.Sections, planmode.SectionName) {
		t.Fatalf("sections = %v, want %s", p.Sections, planmode.SectionName)
	}
	if kind, ok := rt.EventKind(planmode.EventPlanMode); !ok || kind != host.LogOnly {
		t.Fatal("plan/mode is not declared log-only")
	}
	app.RequireStop()

	if p := rt.Assemble(host.AssembleContext{Agent: a}); slices.Contains(p.Sections, planmode.SectionName) {
		t.Fatal("the section is still registered after stop")
	}
	if _, ok := rt.EventKind(planmode.EventPlanMode); ok {
		t.Fatal("plan/mode is still declared after stop")
	}
	if _, err := sess.Append(ev(planmode.EventPlanMode, `{"active":"yes"}`)); err != nil {
		t.Fatalf("the payload check is still registered after stop: %v", err)
	}
	if _, err := c.Set(a, false); !errors.Is(err, planmode.ErrNotRunning) {
		t.Fatalf("Set after stop = %v, want ErrNotRunning", err)
	}
}

func TestE2EFlipSequenceNetsOutAndCancelAndNoopLogNothing(t *testing.T) {
	var (
		a   *refhost.Agent
		e   *e2e
		got []planmode.Outcome
	)
	e = newE2E(t, nil,
		scripted.Step{Respond: func(context.Context, refhost.Request) (refhost.Response, error) {
			for _, v := range []bool{false, true, false, true, false} {
				o, err := e.c.Set(a, v)
				if err != nil {
					return refhost.Response{}, err
				}
				got = append(got, o)
			}
			return refhost.Response{ToolCalls: callNoop("c1")}, nil
		}},
		scripted.Step{Text: "done"},
	)
	e.addNoop()
	a = e.agent()
	e.prompt(a, "go")
	want := []planmode.Outcome{planmode.Noop, planmode.Queued, planmode.Cancelled, planmode.Queued, planmode.Cancelled}
	if !slices.Equal(got, want) {
		t.Fatalf("outcomes = %v, want %v", got, want)
	}
	if planned(e.request(1)) || len(noticeTexts(e.request(1))) != 0 {
		t.Fatal("a netted-out flip sequence changed the request")
	}
	if got := modes(t, a.Session(), 0); len(got) != 0 {
		t.Fatalf("plan/mode events = %v, want none", got)
	}
}

func TestE2EOneNoticePerChange(t *testing.T) {
	e := newE2E(t, nil, scripted.Step{Text: "one"}, scripted.Step{Text: "two"}, scripted.Step{Text: "three"}, scripted.Step{Text: "four"})
	a := e.agent()
	e.prompt(a, "hi") // header: default mode
	set(t, e.c, a, true)
	set(t, e.c, a, false)
	set(t, e.c, a, true) // the model sees one change: into plan mode
	e.prompt(a, "plan")
	e.prompt(a, "more")
	if got := noticeTexts(e.request(2)); !slices.Equal(got, []string{planmode.NoticeEntered}) {
		t.Fatalf("notices = %q, want one entered notice", got)
	}
	set(t, e.c, a, false)
	e.prompt(a, "build")
	if got := noticeTexts(e.request(3)); !slices.Equal(got, []string{planmode.NoticeEntered, planmode.NoticeLeft}) {
		t.Fatalf("notices = %q, want entered then left", got)
	}
	if planned(e.request(3)) {
		t.Fatal("plan guidance after leaving plan mode")
	}
}

func TestE2ESubscriberCallingGetSeesEveryCommittedTransition(t *testing.T) {
	e := newE2E(t, nil, scripted.Step{Text: "one"}, scripted.Step{Text: "two"})
	sess, err := e.store.Create("")
	if err != nil {
		t.Fatal(err)
	}
	a := e.agentOn(sess)
	var (
		mu   sync.Mutex
		seen []bool // Get's Active at each plan/mode event
	)
	// A UI subscribed before the plugin served the session, refreshing on
	// every event.
	unsubscribe := sess.Subscribe(0, func(ev host.Event) {
		st := e.c.Get(a)
		if ev.Type == planmode.EventPlanMode {
			mu.Lock()
			seen = append(seen, st.Active)
			mu.Unlock()
		}
	})
	defer unsubscribe()
	e.prompt(a, "hi")
	set(t, e.c, a, true)
	e.prompt(a, "plan")
	set(t, e.c, a, false)
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, []bool{true, false}) {
		t.Fatalf("Get inside the subscriber saw %v at the plan/mode events, want [true false]", seen)
	}
}
