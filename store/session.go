package store

import (
	"fmt"
	"sync"
	"time"

	"github.com/dshgo/planmode/host"
)

// persistFunc writes one committed event durably; nil means memory only.
type persistFunc func(e host.Event) error

// session is the log shared by both stores.
type session struct {
	id         string
	validators *validatorSet
	now        func() time.Time
	persist    persistFunc
	fork       func(end int) (host.Session, error)

	mu     sync.Mutex // serializes appends and guards subs
	events []host.Event
	subs   []*subscriber
	snap   sync.RWMutex // guards the events slice header for readers
	closed bool
}

type subscriber struct {
	fn     func(host.Event)
	active bool
}

func newSession(id string, vs *validatorSet, now func() time.Time, p persistFunc) *session {
	return &session{id: id, validators: vs, now: now, persist: p}
}

func (s *session) ID() string { return s.id }

func (s *session) Events() []host.Event {
	s.snap.RLock()
	ev := s.events[:len(s.events):len(s.events)]
	s.snap.RUnlock()
	return ev
}

func (s *session) Len() int {
	s.snap.RLock()
	n := len(s.events)
	s.snap.RUnlock()
	return n
}

func (s *session) Append(e host.Event) (host.Event, error) {
	e, _, err := s.AppendIf(e, nil)
	return e, err
}

func (s *session) AppendIf(e host.Event, cond func() bool) (host.Event, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return host.Event{}, false, fmt.Errorf("store: session %q: %w", s.id, host.ErrClosed)
	}
	if cond != nil && !cond() {
		return host.Event{}, false, nil
	}
	if e.Type == "" {
		return host.Event{}, false, fmt.Errorf("store: session %q: append: event type is empty", s.id)
	}
	if err := s.validators.check(e); err != nil {
		return host.Event{}, false, fmt.Errorf("store: session %q: append: %w", s.id, err)
	}
	e.Seq = uint64(len(s.events)) + 1
	if e.Time.IsZero() {
		e.Time = s.now().UTC()
	}
	if s.persist != nil {
		if err := s.persist(e); err != nil {
			return host.Event{}, false, fmt.Errorf("store: session %q: append: %w", s.id, err)
		}
	}
	s.snap.Lock()
	s.events = append(s.events, e)
	s.snap.Unlock()
	for _, sub := range s.subs {
		if sub.active {
			sub.fn(e)
		}
	}
	return e, true, nil
}

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
				s.subs = append(s.subs[:i:i], s.subs[i+1:]...)
				break
			}
		}
	}
}

func (s *session) Fork(end int) (host.Session, error) {
	if end < 0 || end > s.Len() {
		return nil, fmt.Errorf("store: session %q: fork at %d of %d: %w", s.id, end, s.Len(), host.ErrBadFork)
	}
	return s.fork(end)
}
