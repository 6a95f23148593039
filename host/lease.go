package host

import (
	"context"
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
	// [ErrFenced] once another process was granted the lease since, and
	// once the lease was released.
	Append(e Event) (Event, error)
	// AppendIf is [Session.AppendIf] under the lease, fenced as Append.
	AppendIf(e Event, cond func() bool) (Event, bool, error)
	// Lost is closed once the lease is lost: another process was granted
	// it, or it could not be renewed before it expired.
	Lost() <-chan struct{}
	// Err returns nil until Lost is closed, then why the lease was lost:
	// [ErrFenced] (another process was granted it), [ErrLeaseExpired] (it
	// could not be renewed in time, the store being unreachable) or
	// [ErrClosed] (the session was closed).
	Err() error
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
	// ErrLeaseExpired means a turn lease could not be renewed before it
	// expired (the store was unreachable): the turn is lost although no
	// other process may have taken it.
	ErrLeaseExpired = errors.New("turn lease expired: not renewed in time")
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

// turnLog is what [WithTurnLease] puts in a turn's context.
type turnLog struct {
	sess  string
	lease TurnLease
}

type turnLogKey struct{}

// WithTurnLease returns a context derived from ctx under which [Append]
// and [AppendIf] write to the session s through l. A host that leases
// turns ([TurnLeaser]) runs each turn's pre-step listeners, tool calls,
// questions and result-loss handlers under such a context, so that every
// event a plugin appends during the turn is fenced by the turn's token:
// a process that lost the turn, or a late append after the turn ended,
// writes nothing.
func WithTurnLease(ctx context.Context, s Session, l TurnLease) context.Context {
	return context.WithValue(ctx, turnLogKey{}, turnLog{sess: s.ID(), lease: l})
}

// Append is how a plugin appends e to s: through the turn's lease when
// ctx is a turn's context for s (see [WithTurnLease]), failing with
// [ErrFenced] once that turn was lost or ended, and s.Append otherwise (a
// session one process owns, or a user's command run between turns).
// Pass the context the host gave the tool call, pre-step listener,
// command or extension hook that appends.
func Append(ctx context.Context, s Session, e Event) (Event, error) {
	if l := leaseFor(ctx, s); l != nil {
		return l.Append(e)
	}
	return s.Append(e)
}

// AppendIf is [Session.AppendIf] the way [Append] appends: through the
// turn's lease when ctx is a turn's context for s.
func AppendIf(ctx context.Context, s Session, e Event, cond func() bool) (Event, bool, error) {
	if l := leaseFor(ctx, s); l != nil {
		return l.AppendIf(e, cond)
	}
	return s.AppendIf(e, cond)
}

// leaseFor returns the turn lease ctx carries for s, or nil.
func leaseFor(ctx context.Context, s Session) TurnLease {
	if ctx == nil {
		return nil
	}
	t, ok := ctx.Value(turnLogKey{}).(turnLog)
	if !ok || t.sess != s.ID() {
		return nil
	}
	return t.lease
}
