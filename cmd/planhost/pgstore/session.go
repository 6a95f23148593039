package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hostkit"
)

// session is one log: a local copy of the committed events, kept current
// by this process's appends and by catching up with the database.
type session struct {
	id string

	st   *Store
	wake chan struct{} // a pending catch-up request (capacity 1)

	// closing is done once the session is closed: the follower and a
	// lease's renewals stop, and AfterClose's funcs run. close cancels it
	// with endClosing.
	closing    context.Context
	endClosing context.CancelFunc

	inMu     sync.Mutex   // guards the three below, which the follower takes
	inbox    []host.Event // events other processes' notifications carried
	target   int64        // the longest length notifications announced
	readBack bool         // a catch-up from the table was asked for

	mu     sync.Mutex // the local append lock: serializes appends and deliveries, guards subs and closed
	subs   hostkit.Subscribers
	closed bool

	snap sync.RWMutex // guards log for readers; writers hold mu too
	log  *hostkit.LogBuilder
}

// ID implements [host.Session].
func (s *session) ID() string { return s.id }

// Events implements [host.Session]: the events this process has seen
// committed, which include every event it appended itself and, within one
// notification round trip, other processes' events.
func (s *session) Events() host.Log {
	s.snap.RLock()
	l := s.log.Log()
	s.snap.RUnlock()
	return l
}

// Len implements [host.Session].
func (s *session) Len() int {
	s.snap.RLock()
	n := s.log.Len()
	s.snap.RUnlock()
	return n
}

// Append implements [host.Session].
func (s *session) Append(e host.Event) (host.Event, error) {
	e, _, err := s.AppendIf(e, nil)
	return e, err
}

// AppendIf implements [host.Session]. In one transaction it locks the
// session's row (which serializes appends across processes), reads the
// events other processes committed since this process last looked and
// delivers them to the subscribers, and only then runs cond, so cond sees
// the whole log. The event then gets the next Seq and its Time, passes the
// validators and is inserted; after the commit it is added to the local
// log, delivered and announced to the other processes. Nothing of a failed
// or rejected append is visible anywhere.
//
// When the connection breaks during the commit, the outcome is unknown to
// PostgreSQL's client: AppendIf returns the error, and if the commit did
// happen the event reaches this and every process by catching up, once,
// at its place in the log.
func (s *session) AppendIf(e host.Event, cond func() bool) (host.Event, bool, error) {
	return s.appendIf(e, cond, 0)
}

// appendIf is AppendIf under the turn lease granted with token; token 0
// appends without one (an event outside any turn, or a message queued for
// the owner's next step). An append under a token that is no longer the
// session's newest fails with host.ErrFenced before anything is written.
func (s *session) appendIf(e host.Event, cond func() bool, token uint64) (host.Event, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return host.Event{}, false, fmt.Errorf("pgstore: session %q: append: %w", s.id, host.ErrClosed)
	}
	ctx, cancel := s.st.op()
	defer cancel()
	tx, err := begin(ctx, s.st.pool, pgx.TxOptions{})
	if err != nil {
		return host.Event{}, false, fmt.Errorf("pgstore: session %q: append: begin: %w", s.id, err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	n, fence, err := s.lockLocked(ctx, tx)
	if errors.Is(err, pgx.ErrNoRows) {
		return host.Event{}, false, fmt.Errorf("pgstore: session %q: append: %w", s.id, host.ErrSessionNotFound)
	} else if err != nil {
		return host.Event{}, false, fmt.Errorf("pgstore: session %q: append: lock session: %w", s.id, err)
	}
	if token != 0 && uint64(fence) != token {
		return host.Event{}, false, fmt.Errorf("pgstore: session %q: append %q under lease %d, newest lease %d: %w", s.id, e.Type, token, fence, host.ErrFenced)
	}
	if have := int64(s.Len()); n < have {
		// The database lost events this process saw committed (restored
		// from an older backup, rows deleted): appending would fork the log.
		return host.Event{}, false, fmt.Errorf("pgstore: session %q: append: %w: the database holds %d events, this process saw %d", s.id, ErrCorrupt, n, have)
	}
	if n > int64(s.Len()) {
		if err := s.catchUpLocked(tx); err != nil {
			return host.Event{}, false, fmt.Errorf("pgstore: session %q: append: catch up: %w", s.id, err)
		}
		if got := int64(s.Len()); got != n {
			return host.Event{}, false, fmt.Errorf("pgstore: session %q: append: %w: length %d, %d events", s.id, ErrCorrupt, n, got)
		}
	}
	if cond != nil && !cond() {
		return host.Event{}, false, nil
	}
	e, r, err := s.stamp(e, uint64(n)+1)
	if err != nil {
		return host.Event{}, false, err
	}
	if _, err := tx.Exec(ctx, sqlInsertEvent, s.id, r.seq, r.typ, r.at, r.atNS, r.source, r.data); err != nil {
		return host.Event{}, false, fmt.Errorf("pgstore: session %q: append event %d %q: insert: %w", s.id, e.Seq, e.Type, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return host.Event{}, false, fmt.Errorf("pgstore: session %q: append event %d %q: commit: %w", s.id, e.Seq, e.Type, err)
	}
	e = s.addLocked(e)
	s.st.notify.add(s.id, e) // e now holds the log's copy of the data
	return e, true, nil
}

// stamp gives e seq and, unless it has one, the time, and checks it as an
// append does (see [Store.prepare]); it returns e as it is stored and its
// row.
func (s *session) stamp(e host.Event, seq uint64) (host.Event, row, error) {
	e.Seq = seq
	if e.Time.IsZero() {
		e.Time = s.st.now()
	}
	r, err := s.st.prepare(&e)
	if err != nil {
		return host.Event{}, row{}, fmt.Errorf("pgstore: session %q: append event %d %q: %w", s.id, e.Seq, e.Type, err)
	}
	return e, r, nil
}

// lockLocked locks the session's row in tx and then reads its length and
// fencing token, in one round trip: the length is read by a statement of
// its own, after the lock is held, so it counts every append that
// committed while the lock was awaited, and no other can commit until tx
// ends. A session that is gone is pgx.ErrNoRows. s.mu is held.
func (s *session) lockLocked(ctx context.Context, tx pgx.Tx) (n, fence int64, err error) {
	var b pgx.Batch
	b.Queue(sqlLockSession, s.id)
	b.Queue(sqlEventsLen, s.id)
	br := tx.SendBatch(ctx, &b)
	err = br.QueryRow().Scan(&fence)
	if err == nil {
		err = br.QueryRow().Scan(&n)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return n, fence, err
}

// addLocked adds a committed event to the local log, delivers it and
// returns it as stored; s.mu is held.
func (s *session) addLocked(e host.Event) host.Event {
	s.snap.Lock()
	e = s.log.Append(e)
	s.snap.Unlock()
	s.subs.Deliver(e)
	return e
}

// catchUpLocked reads the events after the local log's end (in tx, or
// from the pool when tx is nil, on another connection when the server
// ended one) and adds and delivers each in order; s.mu is held. Events
// are immutable and a session only grows by its next seq under the row
// lock, so reading by position never skips or repeats one. What it
// delivered before failing stays delivered.
func (s *session) catchUpLocked(tx pgx.Tx) error {
	ctx, cancel := s.st.op()
	defer cancel()
	var q querier = s.st.pool
	if tx != nil {
		q = tx
	}
	for i := 1; ; i++ {
		got, err := s.st.read(ctx, q, s.id, s.Len())
		for _, e := range got {
			s.addLocked(e)
		}
		if err == nil || tx != nil || !retry(ctx, s.st.pool, i, err) {
			return err
		}
	}
}

// sync catches up with the database now.
func (s *session) sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("pgstore: session %q: %w", s.id, host.ErrClosed)
	}
	return s.catchUpLocked(nil)
}

// poke asks the follower to catch up from the table.
func (s *session) poke() {
	s.inMu.Lock()
	s.readBack = true
	s.inMu.Unlock()
	s.signal()
}

// notice hands the follower what a notification announced: the session
// has n events, and events (checked by decodeNotice) are the last of them.
func (s *session) notice(events []host.Event, n int64) {
	s.inMu.Lock()
	s.inbox = append(s.inbox, events...)
	s.target = max(s.target, n)
	s.inMu.Unlock()
	s.signal()
}

func (s *session) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// follow catches up whenever poked or notified, until the session is
// closed.
func (s *session) follow() {
	for {
		select {
		case <-s.closing.Done():
			return
		case <-s.wake:
			s.inMu.Lock()
			events, target, readBack := s.inbox, s.target, s.readBack
			s.inbox, s.readBack = nil, false
			s.inMu.Unlock()
			if err := s.follow1(events, target, readBack); err != nil && !errors.Is(err, host.ErrClosed) && s.st.ctx.Err() == nil {
				s.st.opts.logger.Warn(LogCatchUpFailed, "session", s.id, "err", err)
			}
		}
	}
}

// follow1 adds and delivers the notified events that continue the local
// log, each once and in order, after the validators passed it, as a row
// read back would be. It reads the table when asked to, when an event
// does not continue the log or is refused, or when the log is still
// shorter than a notification announced.
func (s *session) follow1(events []host.Event, target int64, readBack bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("pgstore: session %q: %w", s.id, host.ErrClosed)
	}
	for _, e := range events {
		n := uint64(s.Len())
		if e.Seq <= n {
			continue // this process appended it, or read it already
		}
		if e.Seq != n+1 {
			readBack = true // a notification was lost or came late
			break
		}
		if err := s.st.vs.Check(e); err != nil {
			s.st.opts.logger.Warn(LogNoticeRefused, "session", s.id, "err", fmt.Errorf("event %d %q: %w", e.Seq, e.Type, err))
			readBack = true
			break
		}
		s.addLocked(e)
	}
	if !readBack && int64(s.Len()) >= target {
		return nil
	}
	return s.catchUpLocked(nil)
}

// Subscribe implements [host.Session]. Replay and deliveries run with the
// local append lock held: fn must not call Append, AppendIf, Subscribe,
// Fork or the returned unsubscribe func of the same session, nor the
// store. Events other processes commit are delivered from the store's
// follower, in log order, each once.
func (s *session) Subscribe(from int, fn func(host.Event)) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subs.Add(&s.mu, s.log.Log(), from, fn)
}

// Fork implements [host.Session]. The prefix is copied inside the
// database, in one transaction, to a session with a fresh ID.
func (s *session) Fork(end int) (host.Session, error) {
	if n := s.Len(); end < 0 || end > n {
		return nil, fmt.Errorf("pgstore: session %q: fork at %d of %d: %w", s.id, end, n, host.ErrBadFork)
	}
	return s.st.fork(s, end)
}

var _ host.SessionCloseNotifier = (*session)(nil)

// Sync reports whether the session still takes appends: every append is
// committed (and durable, per the server's settings) when it returns, so
// there is nothing left to flush. It fails with host.ErrClosed once the
// session or the store was closed.
func (s *session) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("pgstore: session %q: sync: %w", s.id, host.ErrClosed)
	}
	return nil
}

// Refresh implements [host.Refresher]: it reads the events other processes
// committed and delivers them before it returns, so a plugin that decides
// on the log (the plan-mode controller's Set) never acts on a stale view.
func (s *session) Refresh() error { return s.sync() }

var _ host.Refresher = (*session)(nil)

// close stops appends and the follower. It is idempotent.
func (s *session) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.endClosing()
	}
}

// AfterClose implements [host.SessionCloseNotifier]: f runs once, in its
// own goroutine, after the session is closed (by [Store.CloseSession] or
// [Store.Close]); at once when it already is.
func (s *session) AfterClose(f func()) (stop func() bool) {
	return context.AfterFunc(s.closing, f)
}
