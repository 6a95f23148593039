package store

import (
	"fmt"
	"log/slog"
)

// DefaultMaxLineSize is the default limit, in bytes, of one event's JSON
// line in a [Dir] (the trailing newline not counted).
const DefaultMaxLineSize = 4 << 20

// SyncPolicy says when a [Dir] calls fsync on a session file.
type SyncPolicy int

const (
	// SyncEveryAppend syncs after every append: an event is on stable
	// storage before Append returns.
	SyncEveryAppend SyncPolicy = iota
	// SyncTurnEnd syncs when a "turn/end" event is appended, which also
	// makes every earlier event of the session durable. A crash can lose
	// the events of the turn in progress, never part of one event.
	SyncTurnEnd
	// SyncNever leaves flushing to the operating system. A crash of the
	// process loses nothing (each append is one write to the kernel); a
	// crash of the machine can lose recent events.
	SyncNever
	// SyncGroup, the default, is group commit: each append is written to
	// the file at once (so a crash of the process loses nothing), and
	// events are made durable together when the host calls the session's
	// Sync (host.Syncer) at a point where something is shown, when a
	// "turn/end" is appended, and when the session is closed. Concurrent
	// Sync calls share one fsync.
	SyncGroup
)

// String returns "every-append", "turn-end", "never" or "group".
func (p SyncPolicy) String() string {
	switch p {
	case SyncEveryAppend:
		return "every-append"
	case SyncTurnEnd:
		return "turn-end"
	case SyncNever:
		return "never"
	case SyncGroup:
		return "group"
	}
	return fmt.Sprintf("SyncPolicy(%d)", int(p))
}

// Option configures a [Dir].
type Option func(*options)

type options struct {
	sync    SyncPolicy
	logger  *slog.Logger
	maxLine int
}

func defaultOptions() options {
	return options{sync: SyncGroup, logger: slog.New(slog.DiscardHandler), maxLine: DefaultMaxLineSize}
}

func (o options) validate() error {
	switch o.sync {
	case SyncEveryAppend, SyncTurnEnd, SyncNever, SyncGroup:
	default:
		return fmt.Errorf("store: sync policy %d: want SyncGroup, SyncEveryAppend, SyncTurnEnd or SyncNever: %w", int(o.sync), ErrBadOption)
	}
	if o.maxLine < 1 {
		return fmt.Errorf("store: max line size %d: want at least 1: %w", o.maxLine, ErrBadOption)
	}
	return nil
}

// WithSyncPolicy sets when session files are synced; the default is
// [SyncGroup].
func WithSyncPolicy(p SyncPolicy) Option { return func(o *options) { o.sync = p } }

// WithLogger sets the logger that receives the warnings a [Dir] emits when
// it repairs a file (see [LogTornLine]); nil, the default, discards them.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l == nil {
			l = slog.New(slog.DiscardHandler)
		}
		o.logger = l
	}
}

// WithMaxLineSize sets the largest event line, in bytes without the
// newline, that Append accepts and Open reads; the default is
// [DefaultMaxLineSize].
func WithMaxLineSize(n int) Option { return func(o *options) { o.maxLine = n } }
