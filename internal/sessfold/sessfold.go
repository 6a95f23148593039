// Package sessfold keeps a small state per session, folded from the log
// once and then kept current by a session subscription, for the companion
// plugins' sections and tools.
package sessfold

import (
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/dshgo/planmode/host"
)

// ErrClosed means the folds were closed (the plugin stopped).
var ErrClosed = errors.New("the plugin is not running")

// Folds holds one folded state of type S per session.
type Folds[S any] struct {
	apply func(s *S, e host.Event)

	mu       sync.Mutex
	closed   bool
	sessions map[host.Session]*entry[S]
}

type entry[S any] struct {
	mu          sync.Mutex
	s           S
	unsubscribe func()
}

// New returns folds applying apply to every event of each session served.
// apply runs under the session's append lock: it must be fast and must not
// call back into the session.
func New[S any](apply func(s *S, e host.Event)) *Folds[S] {
	return &Folds[S]{apply: apply, sessions: map[host.Session]*entry[S]{}}
}

// Get returns a copy of sess's state, folding the log and subscribing on
// first sight. It must not run inside a session callback.
func (f *Folds[S]) Get(sess host.Session) (S, error) {
	var zero S
	if sess == nil {
		return zero, errors.New("no session")
	}
	if t := reflect.TypeOf(sess); !t.Comparable() {
		return zero, fmt.Errorf("session type %v is not comparable", t)
	}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return zero, ErrClosed
	}
	e, ok := f.sessions[sess]
	if !ok {
		e = &entry[S]{}
		e.unsubscribe = sess.Subscribe(0, func(ev host.Event) {
			e.mu.Lock()
			f.apply(&e.s, ev)
			e.mu.Unlock()
		})
		f.sessions[sess] = e
	}
	f.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.s, nil
}

// Update runs fn on sess's state under its lock (for in-memory marks that
// are not in the log, such as "served").
func (f *Folds[S]) Update(sess host.Session, fn func(s *S)) error {
	if _, err := f.Get(sess); err != nil {
		return err
	}
	f.mu.Lock()
	e := f.sessions[sess]
	f.mu.Unlock()
	if e == nil {
		return ErrClosed
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	fn(&e.s)
	return nil
}

// Close stops every subscription and drops the states. Get fails with
// ErrClosed afterwards.
func (f *Folds[S]) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for sess, e := range f.sessions {
		e.unsubscribe()
		delete(f.sessions, sess)
	}
}
