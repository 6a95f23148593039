package planmode

import (
	"sync"
	"sync/atomic"

	"github.com/dshgo/planmode/host"
)

// run is one Start..Stop period of a controller.
type run struct {
	done chan struct{} // closed by Stop
	undo []func()      // registrations, in the order made

	mu     sync.Mutex // serializes first sight of a session, its release and closing
	closed bool
	warned atomic.Bool

	// sessions maps session IDs to states, stored once their first sight
	// finished. Writers hold mu too; smu is never held across a call, so
	// a lookup never waits for a first sight.
	smu      sync.RWMutex
	sessions map[string]*sessionState
}

// newRun returns a run that serves no session yet.
func newRun() *run {
	return &run{done: make(chan struct{}), sessions: map[string]*sessionState{}}
}

// lookup returns the session's state when the run serves the session. The
// state is keyed by the session's ID, not by the Session value, so a host
// whose Session type is not comparable, or that wraps one session in a new
// value per call, is served like any other.
func (r *run) lookup(sess host.Session) (*sessionState, bool) {
	r.smu.RLock()
	st, ok := r.sessions[sess.ID()]
	r.smu.RUnlock()
	return st, ok
}

// state returns the session's state and its word as it is now, creating
// and subscribing the state on first sight. It must not run inside a
// session callback (a subscriber or an AppendIf condition): subscribing
// takes the session's append lock.
func (r *run) state(sess host.Session) (*sessionState, word, error) {
	if st, ok := r.lookup(sess); ok {
		return st, st.load(), nil
	}
	id := sess.ID()
	if id == "" {
		return nil, word{}, errNoSessionID
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, word{}, ErrNotRunning
	}
	if st, ok := r.lookup(sess); ok {
		return st, st.load(), nil
	}
	st := &sessionState{id: id, sess: sess}
	// Fold the log as it is now in one pass (Project's) and subscribe from
	// where the pass ended: the store replays what was appended meanwhile,
	// so the fold has no gap and no double delivery.
	ev := sess.Events()
	st.vmu.Lock()
	st.v.applyAll(ev)
	st.publishLocked()
	st.folded.Store(st.v.n)
	st.vmu.Unlock()
	st.unsubscribe = sess.Subscribe(ev.Len(), st.fold)
	// Seed the pending selection from the log (a completed /plan or an
	// approved exit whose plan/mode never landed).
	if sel, exit := st.load().projected(); sel != SelectionNone {
		st.setPending(sel, exit)
	}
	if n, ok := sess.(host.SessionCloseNotifier); ok {
		st.stopClose = n.AfterClose(func() { r.release(st) })
	}
	r.smu.Lock()
	r.sessions[id] = st
	r.smu.Unlock()
	return st, st.load(), nil
}

// release drops the state of a session that was closed: its pending
// selection is dropped (a selection the log records is seeded again if the
// session is opened and served anew) and its subscription stops.
func (r *run) release(st *sessionState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.smu.Lock()
	held := r.sessions[st.id] == st
	if held {
		delete(r.sessions, st.id)
	}
	r.smu.Unlock()
	if !held {
		return // the run closed, and dropped the state already
	}
	st.released.Store(true)
	st.closed.Store(true)
	st.unsubscribe()
}

// count returns how many sessions the run keeps state for.
func (r *run) count() int {
	r.smu.RLock()
	defer r.smu.RUnlock()
	return len(r.sessions)
}

// close drops every session state and stops their subscriptions. Pending
// selections are dropped with them. Each state is marked closed before its
// subscription stops, so from then on every append condition the
// controller passes fails: a Set or pre-step still holding the state never
// appends on a view that no longer follows the log.
func (r *run) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	r.smu.Lock()
	sessions := r.sessions
	r.sessions = map[string]*sessionState{}
	r.smu.Unlock()
	for _, st := range sessions {
		st.closed.Store(true)
		if st.stopClose != nil {
			st.stopClose()
		}
		st.unsubscribe()
	}
}

// maxUnfolded bounds how many events after the last one folded Get may
// have to scan: the events that change nothing are not folded one by one.
const maxUnfolded = 16

// sessionState is the controller's state for one session: the fold of its
// log and the pending selection, both guarded by vmu, and the word they
// make, which reads load without a lock.
//
// The fold is written by the session subscription, which runs under the
// session's append lock. vmu is never held while calling the session or
// the host. Each change stores a new word in now (copy on write: a stored
// word is never changed), so a read is one atomic load and never waits,
// not even for one event's fold. mu serializes the decisions that change
// the pending selection, and is held across their appends (the
// subscription never takes it).
type sessionState struct {
	// What a read touches comes first.
	now atomic.Pointer[word] // the word as it is now; replaced under vmu
	// folded is the position up to which now reflects the log. The events
	// after it are not delivered yet (an append under way) or change
	// nothing; skipped ones move it on once per maxUnfolded, so there are
	// few. It only grows (set at first sight, then by the session's
	// deliveries in log order) and is stored after now.
	folded atomic.Uint64
	prev   *word // the word now held before, reused when it comes back; under vmu

	vmu  sync.Mutex
	v    view      // the fold of the log up to its event v.n (the events after it up to folded change nothing)
	sel  Selection // the pending selection; never the logged state
	exit bool      // sel is an approved exit

	id          string
	sess        host.Session // the value first seen; appends go through it
	unsubscribe func()
	stopClose   func() bool // unregisters the close notification; nil without one

	closed    atomic.Bool // the run stopped or the session closed: every append condition fails
	released  atomic.Bool // the session closed (stored before closed)
	reviewing atomic.Bool // an exit_plan_mode review of the session is open

	mu       sync.Mutex // serializes changes to the pending selection
	warned   bool       // the current pending selection's append failure was logged
	recorded bool       // a "/plan" run the log shows queued or repeated the current pending selection
}

// word is a session's state as one read sees it: the fold of its log and
// the pending selection.
type word struct {
	logged   bool       // the logged state: the last valid plan/mode
	open     bool       // a turn is open
	hdr      headerMode // what the last request header described
	ann      Selection  // the state named by the last notice since that header
	sel      Selection  // the pending selection
	exit     bool       // sel is an approved exit
	proj     Selection  // the pending selection the log alone shows
	projExit bool       // proj is an approved exit
}

func (w word) active() bool { return w.logged }

func (w word) turnOpen() bool { return w.open }

func (w word) header() headerMode { return w.hdr }

func (w word) announced() Selection { return w.ann }

func (w word) pendingExit() bool { return w.exit }

// pending returns the pending selection, or SelectionNone when it equals the
// logged state (a stale selection is never reported or applied).
func (w word) pending() Selection {
	if w.sel == selectionOf(w.logged) {
		return SelectionNone
	}
	return w.sel
}

// projected returns the pending selection the log alone shows.
func (w word) projected() (Selection, bool) { return w.proj, w.projExit }

// load returns the session's word as it is now.
func (s *sessionState) load() word { return *s.now.Load() }

// loadFolded returns the session's word and the position up to which it
// reflects the log (folded; the word may reflect more).
func (s *sessionState) loadFolded() (word, int) {
	n := s.folded.Load()
	return *s.now.Load(), int(n)
}

// publishLocked stores the word that the view and the pending selection
// make, when it differs from the current one. Callers hold vmu; those that
// folded events then store folded.
func (s *sessionState) publishLocked() {
	proj, projExit := s.v.pending()
	w := word{
		logged: s.v.active, open: s.v.turnOpen, hdr: s.v.header, ann: s.v.announced,
		sel: s.sel, exit: s.exit, proj: proj, projExit: projExit,
	}
	if cur := s.now.Load(); cur == nil || *cur != w {
		// Words are never changed once stored, so a word that comes back
		// (a turn opens, then ends) reuses the one stored before.
		next := s.prev
		if next == nil || *next != w {
			next = new(word) // w itself stays on the stack: most events change nothing
			*next = w
		}
		s.prev = cur
		s.now.Store(next)
	}
}

// fold is the session subscription: it folds e into the view. A valid
// "plan/mode" or "plan/cancel" withdraws the pending selection in the same
// step, as it withdraws every selection made before it in [Project]:
// whoever logged it (this controller landing or cancelling the selection,
// or another writer), the selection is over. So a selection the log
// reached by another writer is dropped, never just hidden, and cannot come
// back when the opposite state is logged later.
func (s *sessionState) fold(e host.Event) {
	k, ok := foldKind(&e)
	if !ok {
		// Nothing to fold. Get scans the events after folded for
		// plan/mode; advancing folded now and then keeps that scan short
		// without a store per event.
		if e.Seq-s.folded.Load() >= maxUnfolded {
			s.folded.Store(e.Seq)
		}
		return
	}
	s.vmu.Lock()
	defer s.vmu.Unlock()
	s.v.apply(&e, k)
	if s.v.cut == s.v.n || s.sel == selectionOf(s.v.active) {
		s.sel, s.exit = SelectionNone, false
	}
	s.publishLocked()
	s.folded.Store(s.v.n)
}

// setPending replaces the pending selection, which no logged "/plan" run
// has made yet (callers that know otherwise set recorded after it); callers
// hold mu, or the run's mu at first sight. A selection equal to the logged
// state at the moment it is stored is not stored (it would be stale at
// once), so together with fold the state never holds a pending selection
// equal to its logged state.
func (s *sessionState) setPending(sel Selection, exit bool) {
	s.vmu.Lock()
	if sel == selectionOf(s.v.active) {
		sel = SelectionNone
	}
	s.sel, s.exit = sel, exit && sel != SelectionNone
	s.publishLocked()
	s.vmu.Unlock()
	s.warned, s.recorded = false, false
}

// queueExit is [Controller.queueExit] on the session's state. It fails with
// ErrNotRunning once the controller run that serves the session stops.
//
// The exit counts as recorded by the log from the approval on: the host
// logs the call's "tool/call" before the tool runs and its result after,
// and [Project] dates the exit from that "tool/call". So cancelling it,
// even before the result is logged, appends the [EventPlanCancel] marker,
// which then withdraws the exit for the log as well.
func (s *sessionState) queueExit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return s.closedErr()
	}
	if !s.load().active() {
		s.setPending(SelectionNone, false)
		return nil
	}
	s.setPending(SelectionInactive, true)
	s.recorded = true
	return nil
}

// closedErr is the error of a call on a closed state: host.ErrClosed when
// the session closed, ErrNotRunning when the controller stopped.
func (s *sessionState) closedErr() error {
	if s.released.Load() {
		return host.ErrClosed
	}
	return ErrNotRunning
}

// open is the condition of the appends that need nothing but a running
// controller (a notice): false once the run stopped.
func (s *sessionState) open() bool { return !s.closed.Load() }

// current returns the state for Get: see [sessionState.stateOf].
func (s *sessionState) current() State { return s.stateOf(s.sess) }

// stateOf returns the state for Get of sess, whose ID is the state's.
// Events after folded (skipped ones that change nothing, at most
// maxUnfolded, or ones not delivered yet: Get called from a session
// subscriber that runs before the controller's, or racing an append) are
// scanned for plan/mode, so Get always reflects every event appended before
// it was called.
func (s *sessionState) stateOf(sess host.Session) State {
	w, folded := s.loadFolded()
	active := w.logged
	if n := sess.Len(); folded < n {
		for i, e := range sess.Events().Backward(n) {
			if i < folded {
				break
			}
			if e.Type != EventPlanMode {
				continue
			}
			if a, err := decodeMode(e.Data); err == nil {
				active = a
				break
			}
		}
	}
	pending := w.sel
	if pending == selectionOf(active) {
		pending = SelectionNone
	}
	return State{Active: active, Pending: pending}
}
