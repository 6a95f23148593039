package planmode_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
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

// slotWrappingAgent wraps its session in a new value on every call that
// forwards the wrapped session's slots (own false) or holds slots of its
// own (own true), which the controller must not take for the session's.
type slotWrappingAgent struct {
	*fakeAgent
	own bool
}

type slotWrappedSession struct {
	host.Session
	own *host.Slots
}

func (s *slotWrappedSession) Slots() *host.Slots {
	if s.own != nil {
		return s.own
	}
	return s.Session.(host.SlotHolder).Slots()
}

// freshIDAgent's session builds its ID anew on every call, as a host that
// formats IDs does: equal strings, never the same one. With slots set it
// forwards the wrapped session's slots.
type freshIDAgent struct {
	*fakeAgent
	slots bool
}

type freshIDSession struct{ host.Session }

func (s freshIDSession) ID() string { return strings.Clone(s.Session.ID()) }

type freshIDSlotSession struct{ freshIDSession }

func (s freshIDSlotSession) Slots() *host.Slots { return s.Session.(host.SlotHolder).Slots() }

func (a freshIDAgent) Session() host.Session {
	if a.slots {
		return freshIDSlotSession{freshIDSession{a.fakeAgent.Session()}}
	}
	return freshIDSession{a.fakeAgent.Session()}
}

func (a slotWrappingAgent) Session() host.Session {
	w := &slotWrappedSession{Session: a.fakeAgent.Session()}
	if a.own {
		w.own = new(host.Slots)
	}
	return w
}

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
			name: "a new session value per call that forwards the slots",
			wrap: func(a *fakeAgent) host.Agent { return slotWrappingAgent{a, false} },
		},
		{
			name: "an ID built anew on every call",
			wrap: func(a *fakeAgent) host.Agent { return freshIDAgent{a, true} },
		},
		{
			name: "an ID built anew on every call, without slots",
			wrap: func(a *fakeAgent) host.Agent { return freshIDAgent{a, false} },
		},
		{
			name: "a new session value per call with slots of its own",
			wrap: func(a *fakeAgent) host.Agent { return slotWrappingAgent{a, true} },
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
	inner, err := h.store.Create("")
	if err != nil {
		t.Fatal(err)
	}
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
	inner, err := h.store.Create("")
	if err != nil {
		t.Fatal(err)
	}
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
	inner, err := h.store.Create("")
	if err != nil {
		t.Fatal(err)
	}
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
	inner, err := h.store.Create("")
	if err != nil {
		t.Fatal(err)
	}
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
