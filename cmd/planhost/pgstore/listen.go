package pgstore

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgxlisten"
)

// Messages the store logs at warning level.
const (
	// LogListenLost: the listening connection failed; the store reconnects
	// and then catches up every open session. Attribute: "err".
	LogListenLost = "pgstore: lost the notification connection"
	// LogCatchUpFailed: a session could not read other processes' events;
	// the next notification, poll or append tries again. Attributes:
	// "session" (none when the poll failed), "err".
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

// reconnectDelay is how long the listener waits before it reconnects.
const reconnectDelay = 250 * time.Millisecond

// listener holds one connection that LISTENs for appends and hands the
// open sessions they concern what they carry; after each (re)connect it
// asks every open session to catch up, since anything may have been
// committed while no one listened. Sessions add only the event that
// continues their log and read the table by position otherwise, so a lost
// notification delays a catch-up (until the next notification, poll or
// append) but never skips or repeats an event.
func (s *Store) listener() *pgxlisten.Listener {
	l := &pgxlisten.Listener{
		Connect: func(ctx context.Context) (*pgx.Conn, error) {
			ctx, cancel := context.WithTimeout(ctx, s.opts.timeout)
			defer cancel()
			return pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
		},
		LogError: func(ctx context.Context, err error) {
			if ctx.Err() == nil {
				s.opts.logger.Warn(LogListenLost, "err", err)
			}
		},
		ReconnectDelay: reconnectDelay,
	}
	l.Handle(notifyChannel, listenHandler{s})
	return l
}

type listenHandler struct{ st *Store }

func (h listenHandler) HandleNotification(_ context.Context, n *pgconn.Notification, _ *pgx.Conn) error {
	h.st.noticed(n.Payload)
	return nil
}

func (h listenHandler) HandleBacklog(context.Context, string, *pgx.Conn) error {
	for _, ss := range h.st.open() {
		ss.poke()
	}
	return nil
}

// noticed hands the session a notification names, when it is open and
// behind the length announced, what the notification carried. Other
// notifications (this process's own, those of sessions not open here)
// are not decoded further than their first line.
func (s *Store) noticed(payload string) {
	head, _, _ := strings.Cut(payload, "\n")
	id, n, ok := parsePayload(head)
	if !ok {
		return
	}
	ss := s.lookup(id)
	if ss == nil || int64(ss.Len()) >= n {
		return
	}
	_, n, events, _, err := decodeNotice(payload)
	if err != nil {
		s.opts.logger.Warn(LogNoticeRefused, "session", id, "err", err)
	}
	ss.notice(events, n)
}

// poll compares the open sessions' lengths with the database every poll
// interval and wakes those behind, which catches up a session whose
// notification was lost.
func (s *Store) poll() {
	t := time.NewTicker(s.opts.poll)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		open := s.open()
		if len(open) == 0 {
			continue
		}
		ids := slices.Collect(maps.Keys(open))
		ctx, cancel := s.op()
		rows, err := s.pool.Query(ctx, sqlLens, ids)
		if err == nil {
			var (
				id string
				n  int64
			)
			_, err = pgx.ForEachRow(rows, []any{&id, &n}, func() error {
				if ss := open[id]; int64(ss.Len()) < n {
					ss.poke()
				}
				return nil
			})
		}
		cancel()
		if err != nil && s.ctx.Err() == nil {
			s.opts.logger.Warn(LogCatchUpFailed, "err", err)
		}
	}
}

// open returns the open sessions.
func (s *Store) open() map[string]*session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.sessions)
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
