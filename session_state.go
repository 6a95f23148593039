package planmode

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/dshgo/planmode/host"
)

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

// run is one Start..Stop period of a controller.
type run struct {
	done chan struct{}               // closed by Stop
	undo []func()                    // registrations, in the order made
	key  *host.SlotKey[sessionState] // this run's slot in sessions that hold slots

	mu       sync.Mutex // serializes first sight of a session, its release and closing
	closed   bool
	sessions atomic.Pointer[sessionTable] // session ID → *sessionState; nil until the first
	last     atomic.Pointer[sessionState] // the last session looked up
	warned   atomic.Bool                  // a swallowed error was logged
}

// sameString reports whether a and b are the same string in memory, which
// makes them equal without reading their bytes.
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// newRun returns a run with its own slot key.
func newRun() *run {
	return &run{done: make(chan struct{}), key: host.NewSlotKey[sessionState]()}
}

// lookup returns the session's state, and its cell as it is now, when the
// run already serves the session.
//
// The session the run looked up last answers first, when the session's ID
// is the very string the state keeps (no byte of it is read, so the check
// costs no cache miss when it fails). A session that holds slots
// ([host.SlotHolder]) then finds its state in the run's slot without a
// lookup of its own: the key is the run's, so a slot never yields another
// run's state, and the slot's word holds the cell, so that the read
// touches nothing but the session. Otherwise the state is keyed by the
// session's ID, not by the Session value, so a host whose Session type is
// not comparable, or that wraps one session in a new value per call, is
// served like any other. A state whose first sight has not finished is
// not found.
func (r *run) lookup(sess host.Session) (*sessionState, cell, bool) {
	id := sess.ID()
	last := r.last.Load()
	if last != nil && sameString(last.id, id) {
		if c := last.loadCell(); c.ready() {
			return last, c, true
		}
	}
	if h, ok := sess.(host.SlotHolder); ok {
		if st, w, inline := r.key.LoadWord(h.Slots()); st != nil {
			c := cell(w)
			if !inline {
				c = st.loadCell()
			}
			if c.ready() {
				return st, c, true
			}
		}
	} else if last != nil && last.id == id {
		if c := last.loadCell(); c.ready() {
			return last, c, true // an ID built anew for each call
		}
	}
	t := r.sessions.Load()
	if t == nil {
		return nil, 0, false
	}
	if st := t.find(id, hashID(id)); st != nil {
		if c := st.loadCell(); c.ready() {
			r.last.Store(st)
			return st, c, true
		}
	}
	return nil, 0, false
}

// state returns the session's state, creating and subscribing it on first
// sight. It must not run inside a session callback (a subscriber or an
// AppendIf condition): subscribing takes the session's append lock.
func (r *run) state(sess host.Session) (*sessionState, cell, error) {
	if st, c, ok := r.lookup(sess); ok {
		return st, c, nil
	}
	id := sess.ID()
	if id == "" {
		return nil, 0, errNoSessionID
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, 0, ErrNotRunning
	}
	if st, c, ok := r.lookup(sess); ok {
		return st, c, nil
	}
	st := &sessionState{id: id, hash: hashID(id), sess: sess}
	st.cell.Store(&st.own)
	// Keep the cell in the word of the session's slot when there is one:
	// the slot (and its word, zero: not ready) takes the state before the
	// subscription, so that the fold writes the cell where it stays.
	if h, ok := sess.(host.SlotHolder); ok {
		if slots := h.Slots(); slots != nil {
			r.key.Store(slots, st)
			if p := r.key.Word(slots); p != nil {
				st.cell.Store(p)
			}
		}
	}
	// Fold the log as it is now in one pass (Project's), publish the
	// result once, and subscribe from where the pass ended: the store
	// replays what was appended meanwhile, so the fold has no gap and no
	// double delivery, and the long first fold pays neither a call nor an
	// atomic store per event.
	ev := sess.Events()
	st.v.applyAll(ev)
	st.cell.Load().Store(uint64(newCell(st.v.word(), ev.Len())))
	st.unsubscribe = sess.Subscribe(ev.Len(), st.fold)
	// Seed the pending selection from the log (a completed /plan or an
	// approved exit whose plan/mode never landed). The state is not ready
	// yet, so only the fold can race with this.
	if sel, exit := st.load().projected(); sel != SelectionNone {
		st.setPending(sel, exit)
	}
	if n, ok := sess.(host.SessionCloseNotifier); ok {
		st.stopClose = n.AfterClose(func() { r.release(st) })
	}
	r.sessions.Store(r.sessions.Load().insert(st))
	r.last.Store(st)
	return st, st.markReady(), nil
}

// release drops the state of a session that was closed: its pending
// selection is dropped (a selection the log records is seeded again if the
// session is opened and served anew) and its subscription stops.
func (r *run) release(st *sessionState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sessions.Load().remove(st)
	r.last.CompareAndSwap(st, nil)
	st.released.Store(true)
	st.closed.Store(true)
	st.unsubscribe()
	st.dropSlot(r.key)
}

// served counts the sessions the run keeps state for.
func (r *run) served() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.sessions.Load(); t != nil {
		return t.live
	}
	return 0
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
	r.sessions.Load().each(func(st *sessionState) {
		st.closed.Store(true)
		if st.stopClose != nil {
			st.stopClose()
		}
		st.unsubscribe()
		st.dropSlot(r.key) // the session no longer keeps the run's state alive
	})
	r.sessions.Store(nil)
	r.last.Store(nil)
}

// sessionState is the controller's state for one session.
//
// The fold half (logged state, open turn, header, projection) is written by
// the session subscription, which runs under the session's append lock; the
// pending half is written under mu, which the subscription never takes, so
// holding mu while appending cannot deadlock. Both halves share one atomic
// word, so a reader sees a consistent pair without locking.
type sessionState struct {
	// What a read touches comes first, to share a cache line.
	hash        uint64 // of id, for the run's session table
	id          string
	cell        atomic.Pointer[atomic.Uint64] // where the cell is: own, or the word of the session's slot
	sess        host.Session                  // the value first seen; appends go through it
	unsubscribe func()
	stopClose   func() bool // unregisters the close notification; nil without one
	v           view        // touched only by fold

	closed    atomic.Bool // the run stopped or the session closed: every append condition fails
	released  atomic.Bool // the session closed (stored before closed)
	reviewing atomic.Bool // an exit_plan_mode review of the session is open

	mu       sync.Mutex // serializes changes to the pending selection
	warned   bool       // the current pending selection's append failure was logged
	recorded bool       // a "/plan" run the log shows queued or repeated the current pending selection

	own    atomic.Uint64 // the cell while the session's slot does not keep it
	cellMu sync.Mutex    // held by setPending and while dropSlot moves the cell
}

// loadCell returns the session's cell as it is now.
func (s *sessionState) loadCell() cell { return cell(s.cell.Load().Load()) }

// load returns the session's word as it is now.
func (s *sessionState) load() word { return s.loadCell().word() }

// markReady marks the cell ready, so that lookups find the state, and
// returns it. The caller holds the run's mu, after the state's first sight.
func (s *sessionState) markReady() cell {
	p := s.cell.Load()
	for {
		old := p.Load()
		if p.CompareAndSwap(old, old|cellReady) {
			return cell(old | cellReady)
		}
	}
}

// dropSlot empties the session's slot under key when it still holds s,
// after moving the cell out of the slot's word, which may hold another
// value's word once this value is deleted. The caller holds the run's mu
// (no first sight runs), the subscription has stopped (no fold runs), and
// cellMu keeps setPending out while the cell moves. The slots are those of
// the session value first seen, which returns the same on every call.
func (s *sessionState) dropSlot(key *host.SlotKey[sessionState]) {
	s.cellMu.Lock()
	if p := s.cell.Load(); p != &s.own {
		s.own.Store(p.Load())
		s.cell.Store(&s.own)
	}
	s.cellMu.Unlock()
	if h, ok := s.sess.(host.SlotHolder); ok {
		if slots := h.Slots(); slots != nil {
			key.CompareAndDelete(slots, s)
		}
	}
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

// current returns the state for Get. Events already in the log but not yet
// folded (Get called from a session subscriber that runs before the
// controller's, or racing an append) are read from the log's tail, so Get
// always reflects every event appended before it was called.
func (s *sessionState) current() State { return stateOf(s.loadCell(), s.sess) }

// stateOf is the state for Get from the session's cell and its session:
// see [sessionState.current].
func stateOf(c cell, sess host.Session) State {
	folded, w := c.folded(), c.word()
	active := w.active()
	if n := sess.Len(); folded < n {
		ev := sess.Events()
		for i, e := range ev.Backward(n) {
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
	pending := w.rawPending()
	if pending == selectionOf(active) {
		pending = SelectionNone
	}
	return State{Active: active, Pending: pending}
}

// fold is the session subscription: it folds e into the view and publishes
// the fold half of the word. A valid "plan/mode" or "plan/cancel" withdraws
// the pending selection in the same step, as it withdraws every selection
// made before it in [Project]: whoever logged it (this controller landing
// or cancelling the selection, or another writer), the selection is over.
// So a selection the log reached by another writer is dropped, never just
// hidden, and cannot come back when the opposite state is logged later.
func (s *sessionState) fold(e host.Event) {
	s.v.apply(&e)
	f := s.v.word()
	withdrawn := s.v.cut == s.v.n
	c := s.cell.Load() // moved only once the subscription stopped
	for {
		old := cell(c.Load())
		p := old.word() & pendingMask
		if withdrawn || old.word().rawPending() == selectionOf(f.active()) {
			p = 0
		}
		if c.CompareAndSwap(uint64(old), uint64(old.with(p|f).add(1))) {
			return
		}
	}
}

// setPending replaces the pending selection, which no logged "/plan" run
// has made yet (callers that know otherwise set recorded after it); callers
// hold mu, or the run's mu at first sight. A selection equal to the logged state at the moment it is
// stored is not stored (it would be stale at once), so together with fold
// the word never holds a pending selection equal to its logged state.
func (s *sessionState) setPending(sel Selection, exit bool) {
	p := word(sel) << shiftPending
	if exit && sel != SelectionNone {
		p |= bitPendingExit
	}
	s.cellMu.Lock()
	defer s.cellMu.Unlock()
	c := s.cell.Load()
	for {
		old := cell(c.Load())
		q := p
		if sel == selectionOf(old.word().active()) {
			q = 0
		}
		if c.CompareAndSwap(uint64(old), uint64(old.with(old.word()&^pendingMask|q))) {
			break
		}
	}
	s.warned, s.recorded = false, false
}

// cell is a session's [word] together with the count of events folded into
// it and whether its first sight finished, in one atomic 64-bit value, so
// that a read takes all three in one load.
type cell uint64

const (
	cellWordMask    = 1<<16 - 1 // the word
	cellReady       = 1 << 16   // the first sight finished: lookups find the state
	cellShiftFolded = 17        // the count of events folded, 47 bits
)

// newCell returns a cell, not ready, of w with folded events.
func newCell(w word, folded int) cell {
	return cell(w) | cell(folded)<<cellShiftFolded
}

func (c cell) word() word { return word(c & cellWordMask) }

func (c cell) ready() bool { return c&cellReady != 0 }

func (c cell) folded() int { return int(c >> cellShiftFolded) }

// with returns c with its word replaced by w.
func (c cell) with(w word) cell { return c&^cellWordMask | cell(w) }

// add returns c with n more events folded.
func (c cell) add(n int) cell { return c + cell(n)<<cellShiftFolded }

// word packs a session's state into 32 bits.
type word uint32

const (
	bitActive        = 1 << 0
	bitTurnOpen      = 1 << 1
	shiftHeader      = 2 // headerMode, 2 bits
	shiftAnnounced   = 4 // Selection, 2 bits
	shiftPending     = 6 // Selection, 2 bits
	bitPendingExit   = 1 << 8
	shiftProjected   = 9 // Selection, 2 bits
	bitProjectedExit = 1 << 11

	pendingMask = 3<<shiftPending | bitPendingExit
)

func (w word) active() bool { return w&bitActive != 0 }

func (w word) turnOpen() bool { return w&bitTurnOpen != 0 }

func (w word) header() headerMode { return headerMode(w >> shiftHeader & 3) }

func (w word) announced() Selection { return Selection(w >> shiftAnnounced & 3) }

func (w word) pendingExit() bool { return w&bitPendingExit != 0 }

func (w word) rawPending() Selection { return Selection(w >> shiftPending & 3) }

// pending returns the pending selection, or SelectionNone when it equals the
// logged state (a stale selection is never reported or applied).
func (w word) pending() Selection {
	p := w.rawPending()
	if p == selectionOf(w.active()) {
		return SelectionNone
	}
	return p
}

// projected returns the pending selection the log alone shows.
func (w word) projected() (Selection, bool) {
	return Selection(w >> shiftProjected & 3), w&bitProjectedExit != 0
}

// word returns the fold half of a session's word.
func (v *view) word() word {
	w := word(v.header)<<shiftHeader | word(v.announced)<<shiftAnnounced
	if v.active {
		w |= bitActive
	}
	if v.turnOpen {
		w |= bitTurnOpen
	}
	sel, exit := v.pending()
	w |= word(sel) << shiftProjected
	if exit {
		w |= bitProjectedExit
	}
	return w
}
