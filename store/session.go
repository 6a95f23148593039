package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hostkit"
	"github.com/dshgo/planmode/store/eventcheck"
)

// backend makes a session's appends durable; memory sessions have none.
// Its methods run with the session's append lock held.
type backend interface {
	// write stores e, which is canonical and validated. An error means
	// nothing was stored (or the backend refuses every later write).
	write(e host.Event) error
	// sync makes every write so far durable; it runs without the append
	// lock.
	sync() error
	// close releases the backend; no write follows.
	close() error
}

// session is the log shared by both stores.
type session struct {
	id string

	validators *Validators
	now        func() time.Time
	backend    backend                             // nil: memory only
	fork       func(end int) (host.Session, error) // set by the store

	mu     sync.Mutex // the append lock: serializes appends, guards subs and closed
	subs   hostkit.Subscribers
	closed bool

	// closing is done once the session is closed: AfterClose hangs its
	// funcs on it, and close cancels it with endClosing.
	closing    context.Context
	endClosing context.CancelFunc

	snap sync.RWMutex // guards log for readers; appends hold mu too
	log  *hostkit.LogBuilder
}

func newSession(id string, vs *Validators, now func() time.Time, b backend, prefix host.Log) *session {
	closing, endClosing := context.WithCancel(context.Background())
	return &session{id: id, validators: vs, now: now, backend: b, closing: closing, endClosing: endClosing, log: hostkit.NewLogBuilder(prefix)}
}

// AfterClose implements [host.SessionCloseNotifier]: f runs in its own
// goroutine once the session is closed ([Dir.CloseSession], [Dir.Close]).
// A memory session is never closed.
func (s *session) AfterClose(f func()) (stop func() bool) {
	return context.AfterFunc(s.closing, f)
}

// ID implements [host.Session].
func (s *session) ID() string { return s.id }

// Events implements [host.Session]: the snapshot shares the log's chunks,
// which are never moved or rewritten, only appended past its end.
func (s *session) Events() host.Log {
	s.snap.RLock()
	l := s.log.Log()
	s.snap.RUnlock()
	return l
}

// Len implements [host.Session].
func (s *session) Len() int {
	s.snap.RLock()
	n := s.log.Len()
	s.snap.RUnlock()
	return n
}

// Append implements [host.Session].
func (s *session) Append(e host.Event) (host.Event, error) {
	e, _, err := s.AppendIf(e, nil)
	return e, err
}

// AppendIf implements [host.Session]. The event gets its Seq and Time
// before the validators run, so validators see the event exactly as it is
// stored and as they will see it again when the session is reopened.
func (s *session) AppendIf(e host.Event, cond func() bool) (host.Event, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return host.Event{}, false, fmt.Errorf("store: session %q: append: %w", s.id, host.ErrClosed)
	}
	if cond != nil && !cond() {
		return host.Event{}, false, nil
	}
	e.Seq = uint64(s.log.Len()) + 1
	if e.Time.IsZero() {
		e.Time = s.now()
	}
	if err := eventcheck.Append(&e); err != nil {
		return host.Event{}, false, fmt.Errorf("store: session %q: append: %w", s.id, err)
	}
	if err := s.validators.Check(e); err != nil {
		return host.Event{}, false, fmt.Errorf("store: session %q: append event %d %q: %w", s.id, e.Seq, e.Type, err)
	}
	if s.backend != nil {
		if err := s.backend.write(e); err != nil {
			return host.Event{}, false, fmt.Errorf("store: session %q: append: %w", s.id, err)
		}
	}
	s.snap.Lock()
	e = s.log.Append(e)
	s.snap.Unlock()
	s.subs.Deliver(e)
	return e, true, nil
}

// Subscribe implements [host.Session]. fn runs with the append lock held,
// so it must not call Append, AppendIf, Subscribe, Fork or the returned
// unsubscribe func of the same session, nor the store: each may deadlock. After
// unsubscribe returns, fn is not running and is never called again.
func (s *session) Subscribe(from int, fn func(host.Event)) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subs.Add(&s.mu, s.log.Log(), from, fn)
}

// Fork implements [host.Session].
func (s *session) Fork(end int) (host.Session, error) {
	if n := s.Len(); end < 0 || end > n {
		return nil, fmt.Errorf("store: session %q: fork at %d of %d: %w", s.id, end, n, host.ErrBadFork)
	}
	return s.fork(end)
}

// Sync implements [host.Syncer]: it returns once every event appended
// before the call is durable. Concurrent calls share one fsync; appends
// go on meanwhile. A memory session has nothing to sync.
func (s *session) Sync() error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return fmt.Errorf("store: session %q: sync: %w", s.id, host.ErrClosed)
	}
	if s.backend == nil {
		return nil
	}
	if err := s.backend.sync(); err != nil {
		return fmt.Errorf("store: session %q: sync: %w", s.id, err)
	}
	return nil
}

// close stops appends and releases the backend. It is idempotent.
func (s *session) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	defer s.endClosing()
	if s.backend == nil {
		return nil
	}
	if err := s.backend.close(); err != nil {
		return fmt.Errorf("store: session %q: close: %w", s.id, err)
	}
	return nil
}

// checkAll runs the validators over events already in a log, naming the
// first event that fails.
func checkAll(vs *Validators, events host.Log) error {
	for _, e := range events.All() {
		if err := vs.Check(e); err != nil {
			return fmt.Errorf("event %d %q: %w", e.Seq, e.Type, err)
		}
	}
	return nil
}

var (
	_ host.Syncer               = (*session)(nil)
	_ host.SessionCloseNotifier = (*session)(nil)
)
