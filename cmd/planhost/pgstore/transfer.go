package pgstore

import (
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// Statements of Latest and Import.
const (
	// sqlLatestSession names the session changed last: the time of its
	// last event, or its creation when that is later (an imported
	// session keeps its events' times but was created now).
	sqlLatestSession = `SELECT s.id FROM planmode_sessions s
		LEFT JOIN LATERAL (SELECT at FROM planmode_events
			WHERE session_id = s.id ORDER BY seq DESC LIMIT 1) e ON true
		ORDER BY greatest(s.created, e.at) DESC, s.id DESC LIMIT 1`
	// sqlImportLock locks the row of session $1 for a replacement (an
	// append under way is waited for, and no lease can be granted until
	// the commit) and reads its lease: who holds it and whether it is
	// live by the database's clock.
	sqlImportLock = `SELECT lease_host, lease_pid, lease_since, lease_until, COALESCE(lease_until > clock_timestamp(), false)
		FROM planmode_sessions WHERE id = $1 FOR UPDATE`
	sqlImportDeleteEvents = `DELETE FROM planmode_events WHERE session_id = $1`
	// sqlImportReset makes the session's row that of a session imported
	// now. The row is kept, and its fencing token only grows: a token
	// granted before the replacement is refused after it, and none is
	// granted twice.
	sqlImportReset = `UPDATE planmode_sessions SET fence = fence + 1, lease_host = '', lease_pid = 0,
		lease_since = NULL, lease_until = NULL, created = now() WHERE id = $1`
)

// importColumns are the columns Import copies each event into.
var importColumns = []string{"session_id", "seq", "type", "at", "at_ns", "source", "data"}

// Latest returns the ID of the session changed last: the one whose last
// event is the newest, or that was created (or imported) after it. With
// no session at all it returns host.ErrSessionNotFound.
func (s *Store) Latest() (string, error) {
	if err := s.check("latest session", ""); err != nil {
		return "", err
	}
	ctx, cancel := s.op()
	defer cancel()
	var id string
	err := s.pool.QueryRow(ctx, sqlLatestSession).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("pgstore: no session: %w", host.ErrSessionNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("pgstore: latest session: %w", err)
	}
	return id, nil
}

// ImportError is the error of an event [Store.Import] refuses: Seq is its
// place in the log given (1 for the first).
type ImportError struct {
	Seq uint64
	Err error
}

func (e *ImportError) Error() string { return fmt.Sprintf("event %d: %v", e.Seq, e.Err) }

func (e *ImportError) Unwrap() error { return e.Err }

// Import stores events as session id, in one transaction: either the
// whole log is there afterwards or nothing changed. The events must count
// 1, 2, 3, ... and each must pass the check every store makes (package
// eventcheck) and the validators, as an append does; their times and
// sources are kept. An event that does not is an [*ImportError]. A
// session id that exists is host.ErrSessionExists unless replace is true;
// then its log is replaced whole (its row is locked first, so the
// replacement waits for an append under way), unless a process holds the
// session's turn lease: that is a [*host.BusyError] naming the holder. A
// replacement keeps the session's fencing token growing, so an append
// under a lease granted before it is refused (host.ErrFenced). Replace
// only a session no process has open, since one that has would go on
// from the log it read.
func (s *Store) Import(id string, events host.Log, replace bool) error {
	if err := store.ValidateID(id); err != nil {
		return err
	}
	if err := s.check("import session", id); err != nil {
		return err
	}
	rows := make([][]any, 0, events.Len())
	for _, e := range events.All() {
		want := uint64(len(rows)) + 1
		if e.Seq != want {
			return &ImportError{Seq: want, Err: fmt.Errorf("%w: seq %d, want %d", ErrCorrupt, e.Seq, want)}
		}
		r, err := s.prepare(&e)
		if err != nil {
			return &ImportError{Seq: e.Seq, Err: fmt.Errorf("%q: %w", e.Type, err)}
		}
		rows = append(rows, []any{id, r.seq, r.typ, r.at, r.atNS, r.source, r.data})
	}
	ctx, cancel := s.op()
	defer cancel()
	purpose := fmt.Sprintf("pgstore: import session %q", id)
	err := inTx(ctx, s.pool, pgx.TxOptions{}, purpose, func(tx pgx.Tx) error {
		var (
			h     host.LeaseHolder
			live  bool
			since *time.Time
			until *time.Time
		)
		err := tx.QueryRow(ctx, sqlImportLock, id).Scan(&h.Host, &h.PID, &since, &until, &live)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if err := insertSession(ctx, tx, id); err != nil {
				return fmt.Errorf("%s: %w", purpose, err)
			}
		case err != nil:
			return fmt.Errorf("%s: look the session up: %w", purpose, err)
		case !replace:
			return fmt.Errorf("%s: %w", purpose, host.ErrSessionExists)
		case live:
			if since != nil {
				h.Since = *since
			}
			if until != nil {
				h.Until = *until
			}
			// The busy error names the session itself: say it once.
			return &host.BusyError{Session: id, Holder: h}
		default:
			if _, err := tx.Exec(ctx, sqlImportDeleteEvents, id); err != nil {
				return fmt.Errorf("%s: delete the old log: %w", purpose, err)
			}
			if _, err := tx.Exec(ctx, sqlImportReset, id); err != nil {
				return fmt.Errorf("%s: reset the session: %w", purpose, err)
			}
		}
		copied, err := tx.CopyFrom(ctx, pgx.Identifier{"planmode_events"}, importColumns, pgx.CopyFromRows(rows))
		if err != nil {
			return fmt.Errorf("%s: insert events: %w", purpose, err)
		}
		if copied != int64(len(rows)) {
			return fmt.Errorf("%s: %w: inserted %d events, want %d", purpose, ErrCorrupt, copied, len(rows))
		}
		return nil
	})
	return err
}
