package store

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/dshgo/planmode/host"
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
	id         string
	validators *Validators
	now        func() time.Time
	backend    backend                             // nil: memory only
	fork       func(end int) (host.Session, error) // set by the store

	mu     sync.Mutex // the append lock: serializes appends, guards subs and closed
	subs   []*subscriber
	closed bool

	done     context.Context // cancelled when the session is closed
	markDone context.CancelFunc

	snap   sync.RWMutex // guards the events slice header for readers
	events []host.Event
	grow   *growth // a bigger copy of events being made; guarded by mu

	slots host.Slots // plugins' per-session values ([host.SlotHolder])
}

// growAsync is the capacity from which a session grows its log in the
// background: the bigger array is allocated and the log copied into it by
// a goroutine while appends go on into the spare room of the old one, so
// that no append copies the whole log under the append lock. Below it,
// append's own growth copies at most this many events.
const growAsync = 1 << 14

// growChunk is how many events the background growth copies at a time;
// growCatchUp is how far behind the log it may stop, leaving the rest to
// the append that takes the new array.
const (
	growChunk   = 8192
	growCatchUp = 256
)

// growth is a bigger array for a session's log, filled by a goroutine with
// a copy of the log's first len(buf) events.
type growth struct {
	done chan struct{} // closed when buf is ready
	buf  []host.Event
}

// withRoom returns events in an array with room for about half as many
// again, so that a session opened or forked large does not grow on its
// first append.
func withRoom(events []host.Event) []host.Event {
	out := make([]host.Event, len(events), len(events)+len(events)/2+16)
	copy(out, events)
	return out
}

// reserve makes room for one more event; s.mu is held. When the log is
// large and three quarters full it starts a goroutine that copies it into
// an array twice the size, catching up with the appends made meanwhile;
// the first append after the copy is done takes the new array, copying
// only the last few events. Only when the old array fills before the copy
// is done does an append wait for it.
func (s *session) reserve() {
	n, c := len(s.events), cap(s.events)
	if c < growAsync {
		return // append grows a small log cheaply enough
	}
	if s.grow == nil && n >= c-c/4 {
		s.grow = s.startGrow(s.events, 2*c)
	}
	if s.grow == nil {
		return
	}
	if n == c {
		<-s.grow.done
	}
	select {
	case <-s.grow.done:
	default:
		return
	}
	buf := append(s.grow.buf, s.events[len(s.grow.buf):]...)
	s.grow = nil
	s.snap.Lock()
	s.events = buf
	s.snap.Unlock()
}

// startGrow copies the log, whose backing array is old's, into a new
// array of capacity c, in the background.
func (s *session) startGrow(old []host.Event, c int) *growth {
	g := &growth{done: make(chan struct{})}
	go func() {
		defer close(g.done)
		buf := make([]host.Event, 0, c)
		for {
			// Events before n are never written again; appends after
			// it go into old's array (never past its capacity) until
			// reserve takes buf.
			s.snap.RLock()
			n := len(s.events)
			s.snap.RUnlock()
			if n-len(buf) <= growCatchUp {
				break
			}
			// In pieces: one copy call cannot be preempted, and a long
			// one would hold up the garbage collector's stop-the-world,
			// and every append with it, until it ended.
			for len(buf) < n {
				buf = append(buf, old[len(buf):min(len(buf)+growChunk, n)]...)
				runtime.Gosched()
			}
		}
		g.buf = buf
	}()
	return g
}

type subscriber struct {
	fn     func(host.Event)
	active bool
}

func newSession(id string, vs *Validators, now func() time.Time, b backend, events []host.Event) *session {
	done, markDone := context.WithCancel(context.Background())
	return &session{id: id, validators: vs, now: now, backend: b, events: events, done: done, markDone: markDone}
}

// AfterClose implements [host.SessionCloseNotifier]: f runs in its own
// goroutine once the session is closed ([Dir.CloseSession], [Dir.Close]).
// A memory session is never closed.
func (s *session) AfterClose(f func()) (stop func() bool) {
	return context.AfterFunc(s.done, f)
}

// ID implements [host.Session].
func (s *session) ID() string { return s.id }

// Events implements [host.Session]: the snapshot aliases the log's storage
// (elements are never rewritten, only appended past the snapshot's end).
func (s *session) Events() []host.Event {
	s.snap.RLock()
	ev := s.events[:len(s.events):len(s.events)]
	s.snap.RUnlock()
	return ev
}

// Len implements [host.Session].
func (s *session) Len() int {
	s.snap.RLock()
	n := len(s.events)
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
	e.Seq = uint64(len(s.events)) + 1
	if e.Time.IsZero() {
		e.Time = s.now()
	}
	if err := canonicalize(&e, true); err != nil {
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
	s.reserve()
	s.snap.Lock()
	s.events = append(s.events, e)
	s.snap.Unlock()
	for _, sub := range s.subs {
		sub.fn(e)
	}
	return e, true, nil
}

// Subscribe implements [host.Session]. fn runs with the append lock held,
// so it must not call Append, AppendIf, Subscribe, Fork or the returned
// unsubscribe func of the same session, nor the store: each may deadlock. After
// unsubscribe returns, fn is not running and is never called again.
func (s *session) Subscribe(from int, fn func(host.Event)) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.events[min(max(from, 0), len(s.events)):] {
		fn(e)
	}
	sub := &subscriber{fn: fn, active: true}
	s.subs = append(s.subs, sub)
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !sub.active {
			return
		}
		sub.active = false
		for i, x := range s.subs {
			if x == sub {
				// Copy so that a delivery loop never sees the slice shift.
				s.subs = append(s.subs[:i:i], s.subs[i+1:]...)
				break
			}
		}
	}
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
	defer s.markDone()
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
func checkAll(vs *Validators, events []host.Event) error {
	for _, e := range events {
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

// Slots implements [host.SlotHolder]. A fork is a new session, with empty
// slots.
func (s *session) Slots() *host.Slots { return &s.slots }

var _ host.SlotHolder = (*session)(nil)
