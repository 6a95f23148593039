package pgstore

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Messages the store logs at warning level.
const (
	// LogListenLost: the listening connection failed; the store reconnects
	// and then catches up every open session. Attribute: "err".
	LogListenLost = "pgstore: lost the notification connection"
	// LogCatchUpFailed: a session could not read other processes' events;
	// the next notification, poll or append tries again. Attributes:
	// "session", "err".
	LogCatchUpFailed = "pgstore: catch-up failed"
	// LogLeaseLost: another process was granted a turn lease this
	// process held; its later writes under it are refused.
	LogLeaseLost = "pgstore: turn lease lost to another process"
	// LogLeaseRenewFailed: a turn lease could not be renewed; it is lost
	// if that goes on until it expires.
	LogLeaseRenewFailed = "pgstore: turn lease renewal failed"
	// LogNoticeRefused: a notification carried events that failed the
	// checks of an event read back; the session reads the rows from the
	// table instead. Attributes: "session", "err".
	LogNoticeRefused = "pgstore: refused the events of a notification; reading the table instead"
	// LogNotifyFailed: the notifications of committed appends could not be
	// sent; other processes learn of the events at their next poll or
	// append. Attributes: "sessions", "err".
	LogNotifyFailed = "pgstore: notify failed"
)

// listener holds one connection that LISTENs for appends and hands the
// open sessions they concern what they carry. Sessions add only the
// event that continues their log and read the table by position
// otherwise, so a lost notification delays a catch-up (until the next
// notification, poll or append) but never skips or repeats an event.
type listener struct {
	st *Store
}

func (l *listener) run() {
	ctx := l.st.ctx
	backoff := reconnectMin
	for ctx.Err() == nil {
		err := l.session(ctx)
		if ctx.Err() != nil {
			return
		}
		l.st.opts.logger.Warn(LogListenLost, "err", redact(err, l.st.password))
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, reconnectMax)
	}
}

// session connects, listens, catches up every open session (anything may
// have been committed while no one listened) and then waits for
// notifications, polling the open sessions' lengths when none came for a
// poll interval. It returns when the connection fails or ctx ends.
func (l *listener) session(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, l.st.opts.timeout)
	conn, err := pgx.ConnectConfig(cctx, l.st.pool.Config().ConnConfig.Copy())
	if err == nil {
		_, err = conn.Exec(cctx, sqlListen)
	}
	cancel()
	if err != nil {
		if conn != nil {
			_ = conn.Close(context.Background())
		}
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	l.st.wakeAll()
	l.st.listening.Store(true)
	for {
		wctx, cancel := context.WithTimeout(ctx, l.st.opts.poll)
		n, err := conn.WaitForNotification(wctx)
		timedOut := wctx.Err() != nil && ctx.Err() == nil
		cancel()
		switch {
		case err == nil:
			l.st.noticed(n.Payload)
		case timedOut:
			if conn.IsClosed() {
				return err
			}
			if err := l.poll(ctx, conn); err != nil {
				return err
			}
		default:
			return err
		}
	}
}

// poll wakes every open session that is behind the database.
func (l *listener) poll(ctx context.Context, conn *pgx.Conn) error {
	ids := l.st.openIDs()
	if len(ids) == 0 {
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, l.st.opts.timeout)
	defer cancel()
	rows, err := conn.Query(pctx, sqlLens, ids)
	if err != nil {
		return err
	}
	var (
		id string
		n  int64
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &n}, func() error {
		l.st.wakeBehind(id, n)
		return nil
	})
	return err
}

// parsePayload splits "<id> <seq>".
func parsePayload(p string) (string, int64, bool) {
	id, num, ok := strings.Cut(p, " ")
	if !ok {
		return "", 0, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	return id, n, err == nil
}
