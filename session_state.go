package planmode

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/dshgo/planmode/host"
)

// run is one Start..Stop period of a controller.
type run struct {
	stopped context.Context // done once Stop began
	stop    context.CancelFunc
	undo    []func()    // registrations, in the order made
	warned  atomic.Bool // a swallowed error was logged

	mu       sync.Mutex // guards closed and sessions; never held while calling a session
	closed   bool
	sessions map[string]*sessionState // by session ID
}

func newRun() *run {
	r := &run{sessions: map[string]*sessionState{}}
	r.stopped, r.stop = context.WithCancel(context.Background())
	return r
}

// state returns the session's state, creating it on first sight; states are
// keyed by session ID, since a host may wrap one session in a new value per
// call. It must not run inside a session callback: subscribing takes the
// session's append lock. For the same reason the first sight runs without
// r.mu, which Get takes from subscribers; of two, the first one's state wins.
func (r *run) state(sess host.Session) (*sessionState, error) {
	id := sess.ID()
	if st, err := r.lookup(id); st != nil || err != nil {
		return st, err
	}
	if id == "" {
		return nil, errNoSessionID
	}
	st := newSessionState(id, sess)
	if n, ok := sess.(host.SessionCloseNotifier); ok {
		st.stopClose = n.AfterClose(func() { r.release(st) })
	}
	r.mu.Lock()
	cur, closed := r.sessions[id], r.closed
	if cur == nil && !closed && !st.isClosed() { // a session closed meanwhile is released already
		r.sessions[id] = st
	}
	r.mu.Unlock()
	switch {
	case closed:
		st.drop()
		return nil, ErrNotRunning
	case cur != nil:
		st.drop()
		return cur, nil
	}
	return st, nil
}

// lookup returns the state of the session with ID id, nil when the run
// does not serve it yet, and ErrNotRunning when the run stopped.
func (r *run) lookup(id string) (*sessionState, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrNotRunning
	}
	return r.sessions[id], nil
}

// release drops the state of a closed session and stops its subscription.
func (r *run) release(st *sessionState) {
	st.close(true)
	r.mu.Lock()
	if r.sessions[st.id] == st {
		delete(r.sessions, st.id)
	}
	r.mu.Unlock()
	st.unsubscribe()
}

// close drops every session state, with the pending selections. Each is
// marked closed before its subscription stops, so that every append
// condition fails from then on: a Set or pre-step in flight never appends
// on a state that no longer follows the log.
func (r *run) close() {
	r.mu.Lock()
	r.closed = true
	sessions := r.sessions
	r.sessions = nil
	r.mu.Unlock()
	for _, st := range sessions {
		st.close(false)
		st.drop()
	}
}

// sessionState is the controller's state for one session: the fold of its
// log, kept current by a session subscription, and the pending selection.
// mu guards all of it.
//
// The subscription runs under the session's append lock, and so do the
// conditions of the controller's appends, which take mu: so mu is never
// held while calling the session. A decision that appends is made under
// mu, then appended on a condition that takes mu again and checks that
// nothing the decision read has changed (gen counts the changes of the
// pending selection); otherwise it is made again. From a condition that
// passed until its event is folded (or the append failed), decisions wait
// (inflight), so none is made on a state that an append is changing.
type sessionState struct {
	id          string
	sess        host.Session // the value first seen; appends go through it
	unsubscribe func()
	stopClose   func() bool // unregisters the close notification; nil without one

	mu        sync.Mutex
	settled   sync.Cond // broadcast when inflight is cleared or the state closes; L is &mu
	v         view      // the fold of the log
	sel       Selection // the pending selection; never the logged state
	silent    bool      // sel records no notice when it lands: an approved exit or a consented entry
	gen       uint64    // counts the changes of sel
	recorded  bool      // a "/plan" run the log shows queued or repeated sel
	warned    bool      // sel's append failure was logged
	inflight  int       // the position of an append whose condition passed, until it is folded; 0 for none
	reviewing bool      // an exit_plan_mode review of the session is open
	closed    bool      // the run stopped or the session closed: every append condition fails
	released  bool      // the session closed
}

// newSessionState folds the log of sess, seeds the pending selection from
// it ([Project]) and subscribes from where the fold ended, so it has no gap.
func newSessionState(id string, sess host.Session) *sessionState {
	st := &sessionState{id: id, sess: sess}
	st.settled.L = &st.mu
	ev := sess.Events()
	st.v.applyAll(ev)
	st.sel, st.silent = st.v.pending()
	st.unsubscribe = sess.Subscribe(ev.Len(), st.fold)
	return st
}

// fold is the session subscription.
func (s *sessionState) fold(e host.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.applyLocked(&e)
}

// applyLocked folds e unless the view has it already (Get folds the events
// a subscriber ahead of this one is being told about). A valid "plan/mode"
// or "plan/cancel", whoever logged it, withdraws the pending selection, as
// it withdraws every selection made before it in [Project]: so a selection
// another writer logged is dropped, and cannot come back when the opposite
// state is logged later.
func (s *sessionState) applyLocked(e *host.Event) {
	if int(e.Seq) <= s.v.n {
		return
	}
	s.v.apply(e)
	if s.sel != SelectionNone && (s.v.cut == s.v.n || s.sel == selectionOf(s.v.active)) {
		s.setPendingLocked(SelectionNone, false)
	}
	if s.inflight != 0 && s.v.n >= s.inflight {
		s.inflight = 0
		s.settled.Broadcast()
	}
}

// get returns the state for Get, after folding the events of ev that the
// subscription has not delivered yet.
func (s *sessionState) get(ev host.Log) State {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range ev.Range(s.v.n, ev.Len()) {
		s.applyLocked(&e)
	}
	return s.stateLocked()
}

// state returns the logged state and the pending selection.
func (s *sessionState) state() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateLocked()
}

func (s *sessionState) stateLocked() State {
	return State{Active: s.v.active, Pending: s.sel, Exit: s.sel == SelectionInactive && s.silent}
}

// lock locks mu once no append is in flight, for a decision.
func (s *sessionState) lock() {
	s.mu.Lock()
	for s.inflight != 0 && !s.closed {
		s.settled.Wait()
	}
}

// setPendingLocked replaces the pending selection (not recorded by the log:
// callers that know otherwise set recorded after it); one equal to the
// logged state is not stored.
func (s *sessionState) setPendingLocked(sel Selection, silent bool) {
	if sel == selectionOf(s.v.active) {
		sel = SelectionNone
	}
	s.sel, s.silent = sel, silent && sel != SelectionNone
	s.gen++
	s.warned, s.recorded = false, false
}

// appendIf appends e when the state is open and ok (called with mu held)
// reports true, through the turn's lease when ctx is a turn's (see
// [host.AppendIf]). Decisions wait until e is folded or the append failed.
func (s *sessionState) appendIf(ctx context.Context, e host.Event, ok func() bool) (bool, error) {
	at := 0
	_, appended, err := host.AppendIf(ctx, s.sess, e, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed || !ok() {
			return false
		}
		at = s.v.n + 1 // every earlier event was folded
		s.inflight = at
		return true
	})
	if at != 0 {
		s.mu.Lock()
		if s.inflight == at { // the append failed, or its event was not delivered
			s.inflight = 0
			s.settled.Broadcast()
		}
		s.mu.Unlock()
	}
	return appended, err
}

// queueExit records an approved exit: a silent pending selection of the
// default mode, replacing any other. The log records it (Project dates it
// from the call's "tool/call"), so cancelling it appends a marker.
func (s *sessionState) queueExit() error {
	s.lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.closedErrLocked()
	}
	s.setPendingLocked(SelectionInactive, true)
	s.recorded = s.sel != SelectionNone
	return nil
}

// review opens (open true) or closes the session's review; opening reports
// false when one is open already.
func (s *sessionState) review(open bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if open && s.reviewing {
		return false
	}
	s.reviewing = open
	return true
}

// close marks the state closed (released when its session closed) and
// wakes the decisions waiting for an append.
func (s *sessionState) close(released bool) {
	s.mu.Lock()
	s.closed, s.released = true, s.released || released
	s.settled.Broadcast()
	s.mu.Unlock()
}

func (s *sessionState) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// drop stops the close notification and the subscription.
func (s *sessionState) drop() {
	if s.stopClose != nil {
		s.stopClose()
	}
	s.unsubscribe()
}

// closedErrLocked is host.ErrClosed once the session closed, else
// ErrNotRunning.
func (s *sessionState) closedErrLocked() error {
	if s.released {
		return host.ErrClosed
	}
	return ErrNotRunning
}
