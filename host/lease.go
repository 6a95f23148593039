package host

import (
	"errors"
	"fmt"
	"time"
)

// TurnLeaser is implemented by sessions that several host processes may
// serve at once (a store shared over a database). A turn, from
// "turn/start" to "turn/end", is written by one process: the holder of the
// session's turn lease. The lease expires unless its holder renews it, so
// a crashed holder's turn can be taken over, and every grant carries a
// fencing token, a number that grows with each grant: the store refuses
// an append made under a token that is no longer the newest, so a holder
// that was paused or cut off past its lease cannot write into the turn of
// the process that took over.
//
// A session that does not implement it (a memory or file session, which
// one process owns) has one writer by construction.
type TurnLeaser interface {
	// LeaseTurn takes the session's turn lease for this process. When
	// another process holds a live lease it fails with a [*BusyError]
	// (errors.Is [ErrBusy]) naming the holder; it never waits.
	LeaseTurn() (TurnLease, error)
}

// TurnLease is a granted turn lease. The store renews it in the background
// until Release; the turn's events are appended through it.
type TurnLease interface {
	// Token returns the fencing token of the grant.
	Token() uint64
	// Append is [Session.Append] under the lease: it fails with
	// [ErrFenced] once another process was granted the lease since.
	Append(e Event) (Event, error)
	// AppendIf is [Session.AppendIf] under the lease, fenced as Append.
	AppendIf(e Event, cond func() bool) (Event, bool, error)
	// Lost is closed once the lease is lost: another process was granted
	// it, or it could not be renewed before it expired.
	Lost() <-chan struct{}
	// Release stops the renewal and gives the lease up. It is safe to call
	// more than once.
	Release() error
}

// LeaseHolder names the process holding a session's turn lease.
type LeaseHolder struct {
	Host  string    // the holder's host name
	PID   int       // the holder's process ID
	Since time.Time // when the lease was granted
	Until time.Time // when it expires unless renewed
}

var (
	// ErrBusy means another process holds a live turn lease of the
	// session.
	ErrBusy = errors.New("session busy")
	// ErrFenced means an append under a turn lease was refused because
	// another process was granted the lease since: the lease was lost.
	ErrFenced = errors.New("turn lease lost to another process; write refused")
)

// BusyError is the error of a [TurnLeaser.LeaseTurn] that found the lease
// held. It matches [ErrBusy].
type BusyError struct {
	Session string
	Holder  LeaseHolder
}

// Error implements error.
func (e *BusyError) Error() string {
	return fmt.Sprintf("session %q busy on %s (pid %d) since %s", e.Session, e.Holder.Host, e.Holder.PID, e.Holder.Since.UTC().Format(time.RFC3339))
}

// Is reports whether target is [ErrBusy].
func (e *BusyError) Is(target error) bool { return target == ErrBusy }
