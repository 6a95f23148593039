package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hostkit"
	"github.com/dshgo/planmode/store"
)

// Store is a [host.Store] keeping session logs in PostgreSQL. See the
// package documentation for the schema and the guarantees across
// processes.
//
// A Store returns one session object per ID, so the writers of a process
// share it; sessions stay open (and follow other processes' appends) until
// [Store.CloseSession] or [Store.Close].
type Store struct {
	pool    *pgxpool.Pool
	ownPool bool
	opts    options
	vs      store.Validators
	now     func() time.Time
	notify  *notifier

	ctx    context.Context // cancelled by Close; every operation derives from it
	cancel context.CancelFunc
	wg     sync.WaitGroup // the listener, the poller, the notifier and the sessions' followers

	mu       sync.Mutex // guards sessions and closed
	sessions map[string]*session
	closed   bool
}

// Open connects to the database at connString (a PostgreSQL URL or
// keyword/value connection string, as pgx parses it; pool settings such as
// pool_max_conns and server settings such as statement_timeout may be
// given in it), applies the schema migrations the database lacks
// and starts listening for other processes' appends. Close the store to
// close the pool. Errors never contain the password (pgx masks it). Unless
// the connection string sets idle_in_transaction_session_timeout, it is
// set to the lease expiry ([WithLeaseExpiry]), so that a process paused
// inside an append cannot hold a session's row lock for longer.
func Open(ctx context.Context, connString string, opts ...Option) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("pgstore: parse connection string: %w", err)
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if _, ok := cfg.ConnConfig.RuntimeParams[idleInTxParam]; !ok {
		cfg.ConnConfig.RuntimeParams[idleInTxParam] = strconv.FormatInt(o.leaseExpiry.Milliseconds(), 10)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: create pool: %w", err)
	}
	s, err := newStore(ctx, pool, true, opts)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// idleInTxParam is the server setting that ends a transaction left idle.
const idleInTxParam = "idle_in_transaction_session_timeout"

// New returns a store on an existing pool, which the caller keeps and
// closes after the store. It applies the migrations the database lacks and
// starts listening, as [Open] does. Set idle_in_transaction_session_timeout
// on the pool's connections (Open sets it to the lease expiry): without
// it, a process paused inside an append holds the session's row lock, and
// with it the session, until it resumes.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	return newStore(ctx, pool, false, opts)
}

func newStore(ctx context.Context, pool *pgxpool.Pool, own bool, opts []Option) (*Store, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	mctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if err := migrate(mctx, pool); err != nil {
		return nil, err
	}
	s := &Store{vs: store.Validators{Owner: "pgstore"}, pool: pool, ownPool: own, opts: o, now: time.Now, sessions: map[string]*session{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.notify = newNotifier(s)
	l := s.listener()
	for _, run := range []func(){func() { _ = l.Listen(s.ctx) }, s.poll, s.notify.run} {
		s.wg.Go(run)
	}
	return s, nil
}

// Pool returns the store's connection pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// op returns the context of one operation.
func (s *Store) op() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, s.opts.timeout)
}

// AddValidator implements [host.Validators]. Validators run on this
// process's appends and on every event of a session being opened; events
// other processes append were checked by their validators.
func (s *Store) AddValidator(name string, v host.Validator) (func(), error) {
	return s.vs.Add(name, v)
}

// Create implements [host.Store]. The session row is inserted at once; an
// ID taken by any process is host.ErrSessionExists.
func (s *Store) Create(id string) (host.Session, error) {
	if id == "" {
		id = store.NewID()
	}
	if err := store.ValidateID(id); err != nil {
		return nil, err
	}
	if err := s.check("create session", id); err != nil {
		return nil, err
	}
	ctx, cancel := s.op()
	defer cancel()
	err := inTx(ctx, s.pool, pgx.TxOptions{}, fmt.Sprintf("pgstore: create session %q", id), func(tx pgx.Tx) error {
		if err := insertSession(ctx, tx, id); err != nil {
			return fmt.Errorf("pgstore: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.register(id, host.Log{})
}

// insertSession inserts the row of a new session id in tx.
func insertSession(ctx context.Context, tx pgx.Tx, id string) error {
	_, err := tx.Exec(ctx, sqlCreateSession, id)
	if isUniqueViolation(err) {
		return fmt.Errorf("session %q: %w", id, host.ErrSessionExists)
	}
	if err != nil {
		return fmt.Errorf("insert session %q: %w", id, err)
	}
	return nil
}

func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// check fails when the store is closed.
func (s *Store) check(op, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("pgstore: %s %q: %w", op, id, host.ErrClosed)
	}
	return nil
}

// lookup returns the open session id, if any.
func (s *Store) lookup(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// Open implements [host.Store]. The first Open of an ID in this store reads
// the whole log in one snapshot, checks that it counts 1, 2, 3, ... up to
// the session's length and runs the validators on every event. A later
// Open returns the same session object, caught up with the database, and
// runs the validators over its events again.
func (s *Store) Open(id string) (host.Session, error) {
	if err := store.ValidateID(id); err != nil {
		return nil, err
	}
	if err := s.check("open session", id); err != nil {
		return nil, err
	}
	if ss := s.lookup(id); ss != nil {
		if err := ss.sync(); err != nil {
			return nil, err
		}
		for _, e := range ss.Events().All() {
			if err := s.vs.Check(e); err != nil {
				return nil, fmt.Errorf("pgstore: session %q: open: event %d %q: %w", id, e.Seq, e.Type, err)
			}
		}
		return ss, nil
	}
	ctx, cancel := s.op()
	defer cancel()
	var events []host.Event
	snapshot := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	err := inTx(ctx, s.pool, snapshot, fmt.Sprintf("pgstore: open session %q", id), func(tx pgx.Tx) error {
		var n int64
		if err := tx.QueryRow(ctx, sqlLens, []string{id}).Scan(nil, &n); errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("pgstore: session %q: %w", id, host.ErrSessionNotFound)
		} else if err != nil {
			return fmt.Errorf("pgstore: open session %q: read length: %w", id, err)
		}
		var err error
		events, err = s.read(ctx, tx, id, 0)
		if err == nil && int64(len(events)) != n {
			err = fmt.Errorf("pgstore: open session %q: %w: %d events, length %d", id, ErrCorrupt, len(events), n)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.register(id, host.LogOf(events))
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// read returns the events of id after seq after, checking that they
// continue the log and that each passes the check every store makes
// (package eventcheck) and the validators, as an append does: a row that
// another writer committed without these checks is refused, with what
// was read before it, and nothing after it is read.
func (s *Store) read(ctx context.Context, q querier, id string, after int) ([]host.Event, error) {
	var got []host.Event
	rows, err := q.Query(ctx, sqlReadEvents, id, after)
	if err != nil {
		return nil, fmt.Errorf("pgstore: session %q: read events: %w", id, err)
	}
	defer rows.Close()
	var r row
	for rows.Next() {
		r.source, r.data = nil, nil
		if err := rows.Scan(&r.seq, &r.typ, &r.at, &r.atNS, &r.source, &r.data); err != nil {
			return got, fmt.Errorf("pgstore: session %q: read events: %w", id, err)
		}
		if want := int64(after+len(got)) + 1; r.seq != want {
			return got, fmt.Errorf("pgstore: session %q: read events: %w: seq %d, want %d", id, ErrCorrupt, r.seq, want)
		}
		e, err := r.event()
		if err == nil {
			if verr := s.vs.Check(e); verr != nil {
				err = fmt.Errorf("event %d %q: %w", e.Seq, e.Type, verr)
			}
		}
		if err != nil {
			// The store never changes or skips a stored event, so whoever
			// committed it must correct or delete its row.
			return got, fmt.Errorf("pgstore: session %q: %w; the session cannot go on past this event: "+
				"correct or delete the row (session_id %q, seq %d) of planmode_events", id, err, id, r.seq)
		}
		got = append(got, e)
	}
	if err := rows.Err(); err != nil {
		return got, fmt.Errorf("pgstore: session %q: read events: %w", id, err)
	}
	return got, nil
}

// register makes the session object of id, holding events, starts its
// follower and catches it up with what was committed since events were
// read. When another call registered id meanwhile (two Opens racing),
// that session is returned, caught up, and events are dropped. The
// store's lock is never held across a round trip to the database.
func (s *Store) register(id string, events host.Log) (*session, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, fmt.Errorf("pgstore: open session %q: %w", id, host.ErrClosed)
	}
	ss, ok := s.sessions[id]
	if !ok {
		closing, endClosing := context.WithCancel(context.Background())
		ss = &session{st: s, id: id, log: hostkit.NewLogBuilder(events), wake: make(chan struct{}, 1), closing: closing, endClosing: endClosing}
		s.sessions[id] = ss
		s.wg.Go(ss.follow)
	}
	s.mu.Unlock()
	if err := ss.sync(); err != nil {
		if ok {
			return nil, err
		}
		ss.poke() // the follower tries again
	}
	return ss, nil
}

// CloseSession closes the open session id: its holders see later appends
// fail with host.ErrClosed and it stops following the database; a later
// Open reads it again. Closing a session that is not open is
// host.ErrSessionNotFound.
func (s *Store) CloseSession(id string) error {
	s.mu.Lock()
	ss, ok := s.sessions[id]
	delete(s.sessions, id)
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("pgstore: close session %q: not open: %w", id, host.ErrSessionNotFound)
	}
	ss.close()
	return nil
}

// Close closes every open session, stops listening, makes later Create,
// Open and Fork calls fail with host.ErrClosed and, when [Open] made the
// pool, closes it. It is idempotent.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	sessions := s.sessions
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	s.cancel()
	for _, ss := range sessions {
		ss.close()
	}
	s.wg.Wait()
	if s.ownPool {
		s.pool.Close()
	}
	return nil
}

var _ host.Store = (*Store)(nil)

// fork copies the first end events of src to a new session.
func (s *Store) fork(src *session, end int) (host.Session, error) {
	if err := s.check("fork session", src.id); err != nil {
		return nil, err
	}
	prefix := src.Events().Prefix(end)
	id := store.NewID()
	ctx, cancel := s.op()
	defer cancel()
	purpose := fmt.Sprintf("pgstore: session %q: fork", src.id)
	err := inTx(ctx, s.pool, pgx.TxOptions{}, purpose, func(tx pgx.Tx) error {
		if err := insertSession(ctx, tx, id); err != nil {
			return fmt.Errorf("%s: %w", purpose, err)
		}
		tag, err := tx.Exec(ctx, sqlForkEvents, id, src.id, end)
		if err != nil {
			return fmt.Errorf("%s: copy events to %q: %w", purpose, id, err)
		}
		if tag.RowsAffected() != int64(end) {
			return fmt.Errorf("%s: %w: copied %d events, want %d", purpose, ErrCorrupt, tag.RowsAffected(), end)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.register(id, prefix)
}
