package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dshgo/planmode/host"
)

// leaseTries bounds the grant attempts of one LeaseTurn that keep finding
// a lease that expired or was released between the grant and the read of
// its holder.
const leaseTries = 3

var _ host.TurnLeaser = (*session)(nil)

// LeaseTurn implements [host.TurnLeaser]: one statement grants the lease
// when no live one is held (the database's clock decides) and returns the
// new fencing token. The lease is renewed every third of its expiry
// ([WithLeaseExpiry]) until Release; a renewal that finds another grant,
// or that cannot reach the database before the lease expires, loses it.
func (s *session) LeaseTurn() (host.TurnLease, error) {
	if err := s.Sync(); err != nil {
		return nil, err
	}
	ttl := s.st.opts.leaseExpiry
	for i := 0; ; i++ {
		ctx, cancel := s.st.op()
		var (
			token        int64
			since, until time.Time
		)
		start := time.Now()
		err := s.st.pool.QueryRow(ctx, sqlLeaseGrant, s.id, s.st.opts.holderHost, s.st.opts.holderPID, ttl.Microseconds()).Scan(&token, &since, &until)
		if err == nil {
			cancel()
			l := &lease{s: s, token: uint64(token), done: make(chan struct{})}
			l.lost, l.lose = context.WithCancelCause(context.Background())
			renewing, stop := context.WithCancel(s.closing)
			l.stop = stop
			// The lease counts as ours from before the grant was asked
			// for, so it is given up locally before the database expires it.
			go l.renew(renewing, start)
			return l, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			cancel()
			return nil, fmt.Errorf("pgstore: session %q: lease turn: %w", s.id, err)
		}
		var (
			h    host.LeaseHolder
			live bool
			sn   *time.Time
			un   *time.Time
		)
		err = s.st.pool.QueryRow(ctx, sqlLeaseHolder, s.id).Scan(&h.Host, &h.PID, &sn, &un, &live)
		cancel()
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return nil, fmt.Errorf("pgstore: session %q: lease turn: %w", s.id, host.ErrSessionNotFound)
		case err != nil:
			return nil, fmt.Errorf("pgstore: session %q: lease turn: read holder: %w", s.id, err)
		case live || i+1 >= leaseTries:
			if sn != nil {
				h.Since = *sn
			}
			if un != nil {
				h.Until = *un
			}
			return nil, &host.BusyError{Session: s.id, Holder: h}
		}
	}
}

// lease is a granted turn lease of one session.
type lease struct {
	s     *session
	token uint64

	lost context.Context // done when the lease is lost; its cause says why
	lose context.CancelCauseFunc
	stop context.CancelFunc // ends the renewals (Release)
	done chan struct{}      // closed when renew returns

	mu       sync.RWMutex // appends hold it shared, Release exclusively
	released bool         // Release was called: appends are refused
}

// Token implements [host.TurnLease].
func (l *lease) Token() uint64 { return l.token }

// Lost implements [host.TurnLease].
func (l *lease) Lost() <-chan struct{} { return l.lost.Done() }

// Err implements [host.TurnLease].
func (l *lease) Err() error {
	if l.lost.Err() == nil {
		return nil
	}
	return context.Cause(l.lost)
}

// Append implements [host.TurnLease].
func (l *lease) Append(e host.Event) (host.Event, error) {
	e, _, err := l.AppendIf(e, nil)
	return e, err
}

// AppendIf implements [host.TurnLease]: the token is checked in the
// append's transaction, under the session's row lock, so no grant can
// come between the check and the commit. After Release it appends
// nothing: a late write of a turn that ended is refused too.
func (l *lease) AppendIf(e host.Event, cond func() bool) (host.Event, bool, error) {
	l.mu.RLock() // Release waits for an append in flight
	defer l.mu.RUnlock()
	if l.released { // a late write of a turn that ended
		l.lose(host.ErrFenced)
		return host.Event{}, false, fmt.Errorf("pgstore: session %q: lease %d released: %w", l.s.id, l.token, host.ErrFenced)
	}
	e, ok, err := l.s.appendIf(e, cond, l.token)
	if errors.Is(err, host.ErrFenced) {
		l.lose(host.ErrFenced)
	}
	return e, ok, err
}

// Release implements [host.TurnLease]. The lease row is cleared only when
// it still carries this grant's token.
func (l *lease) Release() error {
	l.mu.Lock()
	l.released = true
	l.mu.Unlock()
	l.stop()
	<-l.done
	ctx, cancel := l.s.st.op()
	defer cancel()
	if _, err := l.s.st.pool.Exec(ctx, sqlLeaseRelease, l.s.id, int64(l.token)); err != nil {
		return fmt.Errorf("pgstore: session %q: release lease %d: %w", l.s.id, l.token, err)
	}
	return nil
}

// renew extends the lease every third of its expiry until Release. A
// renewal that finds another grant loses the lease at once; failed
// renewals lose it once the lease has run out by this process's clock,
// counted from before the last successful renewal was asked for. Closing
// the session loses it too.
func (l *lease) renew(renewing context.Context, valid time.Time) {
	defer close(l.done)
	ttl := l.s.st.opts.leaseExpiry
	t := time.NewTicker(ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-renewing.Done():
			if l.s.closing.Err() != nil {
				l.lose(host.ErrClosed)
			}
			return
		case <-t.C:
		}
		start := time.Now()
		ctx, cancel := l.s.st.op()
		var until time.Time
		err := l.s.st.pool.QueryRow(ctx, sqlLeaseRenew, l.s.id, int64(l.token), ttl.Microseconds()).Scan(&until)
		cancel()
		switch {
		case err == nil:
			valid = start
		case errors.Is(err, pgx.ErrNoRows):
			l.s.st.opts.logger.Warn(LogLeaseLost, "session", l.s.id, "token", l.token)
			l.lose(host.ErrFenced)
			return
		default:
			l.s.st.opts.logger.Warn(LogLeaseRenewFailed, "session", l.s.id, "token", l.token, "err", err)
			if time.Since(valid) >= ttl {
				l.lose(host.ErrLeaseExpired)
				return
			}
		}
	}
}
