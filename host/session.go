package host

import "errors"

// Session is one append-only event log.
//
// Implementations are safe for concurrent use. Appends are serialized: each
// is atomic, gets the next sequence number, and is visible to Events, Len and
// the subscribers before Append returns.
type Session interface {
	// ID returns the session's identifier.
	ID() string

	// Events returns a snapshot of the log. It aliases the session's
	// storage and must be treated as read-only; later appends never change
	// the events it already holds or its length, so taking a snapshot is
	// O(1) and allocation-free. A session keeps its log in a
	// hostkit.LogBuilder, whose appends never copy the log.
	Events() Log

	// Len returns the number of events in the log.
	Len() int

	// Append validates e with the store's validators, assigns its Seq and
	// Time, and commits it. When the store is durable the event is on disk
	// (per the store's sync policy) before Append returns. Subscribers are
	// called, in order, before Append returns. A rejected or failed append
	// changes nothing.
	Append(e Event) (Event, error)

	// AppendIf is Append with a precondition: cond runs while the append
	// lock is held, after every earlier event was committed and delivered to
	// the subscribers, and the event is appended only when cond returns
	// true. It reports whether it appended. Plugins use it to commit "only if
	// no turn is open" without racing the loop's own appends. cond must be
	// fast and must not call back into the session.
	AppendIf(e Event, cond func() bool) (Event, bool, error)

	// Subscribe calls fn with every event from index from (0-based) on:
	// first the events already in the log (replayed while the append lock
	// is held, so no append interleaves), then every event committed later,
	// once each, in log order, synchronously from Append with the append
	// lock held. Subscribe(0, fold) therefore folds the whole log once and
	// keeps the fold current with no gap and no double delivery; Subscribe
	// (Len(), fn) sees only new events. fn must not append to the session.
	// The returned func stops delivery: once it returns, fn is not called
	// again (plugins rely on it). It is safe to call more than once.
	Subscribe(from int, fn func(Event)) (unsubscribe func())

	// Fork returns a new session whose log is a copy of this one's first end
	// events. 0 <= end <= Len(); anything else is ErrBadFork.
	Fork(end int) (Session, error)
}

// Validator checks one event. It runs on every append (a non-nil error
// rejects the append) and on every event of a session being opened (a
// non-nil error fails the open), whatever the event's type: a validator
// that checks some types passes the others. Errors should name the event
// and the bad value.
type Validator func(e Event) error

// Validators is the registry of event validators a store applies.
type Validators interface {
	// AddValidator registers v under name; a name already taken is
	// ErrDuplicate.
	AddValidator(name string, v Validator) (unregister func(), err error)
}

// Store creates and opens sessions.
type Store interface {
	Validators
	// Create starts a new, empty session with the given ID (or a fresh ID
	// when id is empty). An ID that is taken is ErrSessionExists.
	Create(id string) (Session, error)
	// Open returns an existing session, replaying and validating its log.
	// An unknown ID is ErrSessionNotFound.
	Open(id string) (Session, error)
}

// Errors shared by hosts and stores.
var (
	// ErrDuplicate means a name is already registered.
	ErrDuplicate = errors.New("already registered")
	// ErrSessionExists means a session with that ID already exists.
	ErrSessionExists = errors.New("session exists")
	// ErrSessionNotFound means no session has that ID.
	ErrSessionNotFound = errors.New("session not found")
	// ErrBadSessionID means an ID is empty, too long or not a plain name.
	ErrBadSessionID = errors.New("bad session id")
	// ErrBadFork means a fork point is outside the log.
	ErrBadFork = errors.New("fork point outside the log")
	// ErrClosed means the session or store was closed.
	ErrClosed = errors.New("closed")
)
