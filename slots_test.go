package planmode_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// slotsOf returns the slots of a session that must hold them.
func slotsOf(t *testing.T, s host.Session) *host.Slots {
	t.Helper()
	h, ok := s.(host.SlotHolder)
	if !ok {
		t.Fatalf("%T does not hold slots; the test needs a session that does", s)
	}
	return h.Slots()
}

func TestRestartedControllerNeverSeesTheOldRunsStateThroughTheSlot(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	a := h.newAgent(t)
	slots := slotsOf(t, a.Session())
	must(a.StartTurn())
	if got := set(t, c, a, true); got != planmode.Queued { // in memory only
		t.Fatalf("Set(true) = %v, want queued", got)
	}
	old := planmode.RunSlotOf(c)
	if !old.Holds(slots) {
		t.Fatal("the served session's slot is empty: reads would not find the state there")
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if old.Holds(slots) {
		t.Fatal("after Stop the session's slot still holds the state: the session keeps the stopped run alive")
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if planmode.RunSlotOf(c) == old {
		t.Fatal("the new run reuses the old run's slot key")
	}
	// The queued selection lived in the old run's memory and went with it;
	// the new run serves the session afresh and can change it.
	wantState(t, c, a, planmode.State{})
	if got := set(t, c, a, true); got != planmode.Queued {
		t.Fatalf("Set(true) after the restart = %v, want queued", got)
	}
	wantState(t, c, a, planmode.State{Pending: planmode.SelectionActive})
	if !planmode.RunSlotOf(c).Holds(slots) {
		t.Fatal("the new run did not store its state in the session's slot")
	}
}

// slotClosingSession is a closingSession that forwards the slots of the
// session it wraps, as hosts that wrap sessions should.
type slotClosingSession struct{ *closingSession }

func (s slotClosingSession) Slots() *host.Slots {
	return s.closingSession.Session.(host.SlotHolder).Slots()
}

func TestClosedSessionsSlotIsEmptied(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	inner, err := h.store.Create("")
	if err != nil {
		t.Fatal(err)
	}
	cs := slotClosingSession{newClosingSession(inner)}
	slots := slotsOf(t, cs)
	a := agentOn(cs)
	must(a.StartTurn())
	set(t, c, a, true)
	key := planmode.RunSlotOf(c)
	if !key.Holds(slots) {
		t.Fatal("the served session's slot is empty")
	}
	cs.close()
	deadline := time.Now().Add(10 * time.Second)
	for planmode.ServedSessions(c) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the state of the closed session was not released")
		}
		time.Sleep(time.Millisecond)
	}
	if key.Holds(slots) {
		t.Fatal("the closed session's slot still holds its state")
	}
	wantState(t, c, a, planmode.State{})
	// Served again (the host still holds the value), it gets a fresh state.
	again := agentOn(inner)
	if got := set(t, c, again, true); got != planmode.Queued {
		t.Fatalf("Set on the session served again = %v, want queued", got)
	}
	if !key.Holds(slots) {
		t.Fatal("the session served again did not get its slot back")
	}
}

func TestTwoControllersOnOneSessionEachFindTheirOwnState(t *testing.T) {
	h1, h2 := newFakeHost(), newFakeHost()
	c1, c2 := h1.start(t, nil), h2.start(t, nil)
	a := h1.newAgent(t) // h2's controller serves the same session value
	slotsOf(t, a.Session())
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
// once it is over no session's slot holds the state of a run that ended (a
// first sight racing Stop never stores into a slot after the run closed).
func TestSlotsAcrossConcurrentRestarts(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	agents := make([]*fakeAgent, 8)
	for i := range agents {
		agents[i] = h.newAgent(t)
		slotsOf(t, agents[i].Session())
	}
	var mu sync.Mutex
	keys := []planmode.RunSlot{planmode.RunSlotOf(c)}
	done := make(chan struct{})
	var restarts sync.WaitGroup
	restarts.Add(1)
	go func() {
		defer restarts.Done()
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
			mu.Lock()
			keys = append(keys, planmode.RunSlotOf(c))
			mu.Unlock()
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
	restarts.Wait()
	users.Wait()
	live := planmode.RunSlotOf(c)
	for _, a := range agents {
		slots := slotsOf(t, a.Session())
		for n, k := range keys {
			if k != live && k.Holds(slots) {
				t.Fatalf("session %s: the slot of ended run %d still holds its state", a.Session().ID(), n)
			}
		}
	}
}
