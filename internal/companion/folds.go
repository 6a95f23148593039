package companion

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/dshgo/planmode/host"
)

// Folds keeps one state of type S per session, folded from the log once
// and kept current by a session subscription. It serves between Open and
// Close.
type Folds[S any] struct {
	apply func(s *S, e host.Event)

	mu       sync.Mutex
	open     bool
	sessions map[host.Session]*fold[S]
}

type fold[S any] struct {
	mu          sync.Mutex
	s           S
	gone        bool // closed: no longer current
	unsubscribe func()
}

// NewFolds returns closed folds applying apply to every event of each
// session served. apply runs under the session's append lock: it must be
// fast and must not call back into the session.
func NewFolds[S any](apply func(s *S, e host.Event)) *Folds[S] {
	return &Folds[S]{apply: apply}
}

// Open starts serving; the returned func is Close. It fits
// [Registrar.Add].
func (f *Folds[S]) Open() (func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.open, f.sessions = true, map[host.Session]*fold[S]{}
	return f.Close, nil
}

// Close stops every subscription and drops the states; Get fails with
// [ErrNotRunning] until the next Open.
func (f *Folds[S]) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.sessions {
		e.unsubscribe()
		e.mu.Lock()
		e.gone = true
		e.mu.Unlock()
	}
	f.open, f.sessions = false, nil
}

// entry returns sess's fold, folding the log and subscribing on first
// sight. It must not run inside a session callback.
func (f *Folds[S]) entry(sess host.Session) (*fold[S], error) {
	if sess == nil {
		return nil, errors.New("no session")
	}
	if t := reflect.TypeOf(sess); !t.Comparable() {
		return nil, fmt.Errorf("session type %v is not comparable", t)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.open {
		return nil, ErrNotRunning
	}
	e, ok := f.sessions[sess]
	if !ok {
		e = &fold[S]{}
		e.unsubscribe = sess.Subscribe(0, func(ev host.Event) {
			e.mu.Lock()
			f.apply(&e.s, ev)
			e.mu.Unlock()
		})
		f.sessions[sess] = e
	}
	return e, nil
}

// Get returns a copy of sess's state. It must not run inside a session
// callback.
func (f *Folds[S]) Get(sess host.Session) (S, error) {
	return f.Update(sess, func(*S) {})
}

// Update runs fn on sess's state under its lock (for marks that are not in
// the log, such as "served") and returns the state.
func (f *Folds[S]) Update(sess host.Session, fn func(s *S)) (S, error) {
	e, err := f.entry(sess)
	if err != nil {
		var zero S
		return zero, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	fn(&e.s)
	return e.s, nil
}

// AppendIf appends ev to sess when cond accepts sess's state as it is
// under the append lock, every earlier event folded; through the turn's
// lease when ctx is a turn's (see [host.AppendIf]). refused is cond's
// error (or [ErrNotRunning] once the folds closed), err the append's.
func (f *Folds[S]) AppendIf(ctx context.Context, sess host.Session, ev host.Event, cond func(S) error) (refused, err error) {
	e, err := f.entry(sess)
	if err != nil {
		return err, nil
	}
	_, _, err = host.AppendIf(ctx, sess, ev, func() bool {
		e.mu.Lock()
		s, gone := e.s, e.gone
		e.mu.Unlock()
		if refused = ErrNotRunning; !gone {
			refused = cond(s)
		}
		return refused == nil
	})
	if err != nil {
		return nil, err
	}
	return refused, nil
}
