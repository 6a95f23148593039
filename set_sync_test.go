package planmode_test

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// syncSession counts Sync calls and fails them on demand.
type syncSession struct {
	host.Session
	syncs atomic.Int32
	fail  error
}

func (s *syncSession) Sync() error {
	s.syncs.Add(1)
	return s.fail
}

func TestSetMakesACommittedSelectionDurableBeforeReturning(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	base := h.newAgent(t)
	sess := &syncSession{Session: base.Session()}
	a := agentOn(sess)

	if out, err := c.Set(a, true); err != nil || out != planmode.Committed {
		t.Fatalf("Set = %v, %v; want committed", out, err)
	}
	if n := sess.syncs.Load(); n != 1 {
		t.Fatalf("Sync was called %d times, want once before Set returned", n)
	}
	if out, err := c.Set(a, true); err != nil || out != planmode.Noop || sess.syncs.Load() != 1 {
		t.Fatalf("a noop Set = %v, %v with %d syncs; want no sync", out, err, sess.syncs.Load())
	}

	sess.fail = errors.New("disk gone")
	if _, err := c.Set(a, false); !errors.Is(err, sess.fail) {
		t.Fatalf("Set with a failing sync = %v, want the sync error", err)
	}
}

// behindSession stands for a session of a shared store that has not yet
// seen the events another process committed: they land on Refresh.
type behindSession struct {
	host.Session
	unseen []host.Event
}

func (s *behindSession) Refresh() error {
	for _, e := range s.unseen {
		if _, err := s.Session.Append(e); err != nil {
			return err
		}
	}
	s.unseen = nil
	return nil
}

func TestSetCatchesUpWithOtherProcessesBeforeDeciding(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	base := h.newAgent(t)
	must(base.StartTurn()) // another process's turn, which it has since ended
	sess := &behindSession{Session: base.Session(), unseen: []host.Event{
		{Type: host.TypeTurnEnd, Data: []byte(`{"reason":"completed"}`)},
	}}
	a := agentOn(sess)
	if out, err := c.Set(a, true); err != nil || out != planmode.Committed {
		t.Fatalf("Set on a session behind another process = %v, %v; want committed (the turn had ended)", out, err)
	}
}
