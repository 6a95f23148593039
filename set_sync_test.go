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
