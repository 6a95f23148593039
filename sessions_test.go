package planmode_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
)

// valueSession is a Session whose type is not comparable (it holds a
// slice), passed by value as some hosts do.
type valueSession struct {
	host.Session
	tags []string
}

// wrappingAgent wraps its session in a new value on every call, as a host
// that decorates sessions per call does.
type wrappingAgent struct {
	*fakeAgent
}

type wrappedSession struct{ host.Session }

func (a wrappingAgent) Session() host.Session { return &wrappedSession{a.fakeAgent.Session()} }

// freshIDAgent's session builds its ID anew on every call, as a host that
// formats IDs does: equal strings, never the same one.
type freshIDAgent struct{ *fakeAgent }

type freshIDSession struct{ host.Session }

func (s freshIDSession) ID() string { return strings.Clone(s.Session.ID()) }

func (a freshIDAgent) Session() host.Session { return freshIDSession{a.fakeAgent.Session()} }

func TestStateIsKeyedBySessionID(t *testing.T) {
	tests := []struct {
		name string
		wrap func(a *fakeAgent) host.Agent
	}{
		{
			name: "a session type that is not comparable",
			wrap: func(a *fakeAgent) host.Agent {
				return hosttest.NewAgent(a.ID(), valueSession{Session: a.Session(), tags: []string{"x"}})
			},
		},
		{
			name: "a new session value per call",
			wrap: func(a *fakeAgent) host.Agent { return wrappingAgent{a} },
		},
		{
			name: "an ID built anew on every call",
			wrap: func(a *fakeAgent) host.Agent { return freshIDAgent{a} },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHost()
			warns := &warnCounter{}
			c := h.start(t, slogTo(warns))
			fa := h.newAgent(t)
			a := tt.wrap(fa)
			if got := set(t, c, a, true); got != planmode.Committed {
				t.Fatalf("Set(true) = %v, want committed", got)
			}
			if !slices.Contains(h.render(a), planmode.SectionName) {
				t.Fatalf("the %s section is missing", planmode.SectionName)
			}
			must(fa.StartTurn())
			if got := set(t, c, a, false); got != planmode.Queued {
				t.Fatalf("Set(false) = %v, want queued", got)
			}
			wantState(t, c, a, planmode.State{Active: true, Pending: planmode.SelectionInactive})
			if got := planmode.ServedSessions(c); got != 1 {
				t.Fatalf("the controller serves %d sessions, want 1", got)
			}
			from := fa.Session().Len()
			h.runStep(fa, accepted)
			if got := modes(t, fa.Session(), from); !slices.Equal(got, []bool{false}) {
				t.Fatalf("plan/mode at the step = %v, want [false]", got)
			}
			wantState(t, c, a, planmode.State{})
			if warns.count() != 0 {
				t.Fatalf("warnings: %v", warns.warns)
			}
		})
	}
}

// closingSession is a session that can be closed, with the close
// notification of host.SessionCloseNotifier.
type closingSession struct {
	host.Session
	ctx   context.Context
	close context.CancelFunc
}

func newClosingSession(s host.Session) *closingSession {
	ctx, cancel := context.WithCancel(context.Background())
	return &closingSession{Session: s, ctx: ctx, close: cancel}
}

func (s *closingSession) AfterClose(f func()) func() bool { return context.AfterFunc(s.ctx, f) }

var _ host.SessionCloseNotifier = (*closingSession)(nil)

func TestClosedSessionReleasesItsState(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	inner := h.newSession(t)
	cs := newClosingSession(inner)
	a := agentOn(cs)
	must(a.StartTurn())
	set(t, c, a, true) // queued, in memory
	if got := planmode.ServedSessions(c); got != 1 {
		t.Fatalf("the controller serves %d sessions, want 1", got)
	}
	cs.close()
	deadline := time.Now().Add(10 * time.Second)
	for planmode.ServedSessions(c) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the state of the closed session was not released")
		}
		time.Sleep(time.Millisecond)
	}
	wantState(t, c, a, planmode.State{}) // the in-memory selection went with it
	// The same session opened again is served afresh, from its log.
	again := agentOn(inner)
	if got := set(t, c, again, true); got != planmode.Queued {
		t.Fatalf("Set on the reopened session = %v, want queued", got)
	}
	if got := planmode.ServedSessions(c); got != 1 {
		t.Fatalf("the controller serves %d sessions, want 1", got)
	}
}

func TestStopUnregistersCloseNotifications(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	inner := h.newSession(t)
	cs := newClosingSession(inner)
	set(t, c, agentOn(cs), true)
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Closing after Stop runs nothing of the stopped controller (goleak
	// would see a release still waiting on the session otherwise).
	cs.close()
}

// noIDSession is a session whose ID is empty: a host bug.
type noIDSession struct{ host.Session }

func (noIDSession) ID() string { return "" }

func TestSwallowedSessionErrorsAreLoggedOnce(t *testing.T) {
	h := newFakeHost()
	warns := &warnCounter{}
	h.start(t, slogTo(warns))
	inner := h.newSession(t)
	a := hosttest.NewAgent("agent-no-id", noIDSession{inner})
	must(a.StartTurn())
	for range 3 {
		if names := h.render(a); slices.Contains(names, planmode.SectionName) {
			t.Fatalf("sections = %v", names)
		}
		if d := h.runStep(a, accepted); !d.Accepted {
			t.Fatal("the plugin failed the step")
		}
	}
	if got := warns.count(); got != 1 {
		t.Fatalf("warnings = %d (%q), want 1", got, warns.warns)
	}
	// An agent-less assembly is normal and logs nothing.
	for _, s := range h.Sections() {
		_ = s.Text(host.AssembleContext{})
	}
	if got := warns.count(); got != 1 {
		t.Fatalf("warnings after an agent-less assembly = %d, want 1", got)
	}
}

// slogTo returns a logger writing to w.
func slogTo(w *warnCounter) *slog.Logger { return slog.New(w) }

func TestSetInFlightWhenTheSessionClosesFailsWithErrClosed(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	inner := h.newSession(t)
	hs := &hookSession{Session: inner}
	cs := newClosingSession(hs)
	a := agentOn(cs)
	wantState(t, c, a, planmode.State{})
	if _, err := c.Set(a, false); err != nil { // serve the session: Noop
		t.Fatal(err)
	}
	hs.arm(func() {
		cs.close()
		deadline := time.Now().Add(10 * time.Second)
		for planmode.ServedSessions(c) != 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	})
	if got, err := c.Set(a, true); !errors.Is(err, host.ErrClosed) {
		t.Fatalf("Set across the close = %v, %v; want host.ErrClosed", got, err)
	}
	if got := modes(t, inner, 0); len(got) != 0 {
		t.Fatalf("plan/mode after the close: %v", got)
	}
}

func TestTwoControllersOnOneSessionEachFindTheirOwnState(t *testing.T) {
	h1, h2 := newFakeHost(), newFakeHost()
	c1, c2 := h1.start(t, nil), h2.start(t, nil)
	a := h1.newAgent(t) // h2's controller serves the same session value
	must(a.StartTurn())
	if got := set(t, c1, a, true); got != planmode.Queued {
		t.Fatalf("c1.Set(true) = %v, want queued", got)
	}
	h2.render(a) // c2's first sight of the session
	wantState(t, c2, a, planmode.State{})
	wantState(t, c1, a, planmode.State{Pending: planmode.SelectionActive})
	if got := set(t, c2, a, false); got != planmode.Noop {
		t.Fatalf("c2.Set(false) = %v, want noop: c2 found c1's pending selection", got)
	}
	if err := c2.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantState(t, c1, a, planmode.State{Pending: planmode.SelectionActive})
	if got := set(t, c1, a, false); got != planmode.Cancelled {
		t.Fatalf("c1.Set(false) after c2 stopped = %v, want cancelled", got)
	}
	if _, err := c2.Set(a, true); !errors.Is(err, planmode.ErrNotRunning) {
		t.Fatalf("the stopped c2's Set = %v, want ErrNotRunning", err)
	}
}

// Readers and writers on many sessions race the controller stopping and
// starting again: every call either works or fails with ErrNotRunning, and
// Get never reports a pending selection equal to the logged state.
func TestSessionsAcrossConcurrentRestarts(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	agents := make([]*fakeAgent, 8)
	for i := range agents {
		agents[i] = h.newAgent(t)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 40 {
			if err := c.Stop(context.Background()); err != nil {
				t.Error(err)
				return
			}
			if err := c.Start(context.Background()); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var users sync.WaitGroup
	for g := range 4 {
		users.Add(1)
		go func() {
			defer users.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				a := agents[(i+g)%len(agents)]
				if _, err := c.Set(a, i%2 == 0); err != nil && !errors.Is(err, planmode.ErrNotRunning) {
					t.Errorf("Set: %v", err)
					return
				}
				st := c.Get(a)
				if st.Pending != planmode.SelectionNone && (st.Pending == planmode.SelectionActive) == st.Active {
					t.Errorf("Get = %+v: the pending selection equals the logged state", st)
				}
			}
		}()
	}
	users.Wait()
	<-done
}
