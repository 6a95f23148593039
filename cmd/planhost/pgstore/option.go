package pgstore

import (
	"fmt"
	"log/slog"
	"time"
)

// Defaults of the options.
const (
	// DefaultTimeout bounds each operation's round trips to the database.
	DefaultTimeout = 30 * time.Second
	// DefaultPollInterval is how often open sessions are compared with the
	// database in case a notification was missed.
	DefaultPollInterval = 5 * time.Second
	// reconnectMin and reconnectMax bound the listener's backoff.
	reconnectMin = 50 * time.Millisecond
	reconnectMax = 2 * time.Second
)

// Option configures a [Store].
type Option func(*options)

type options struct {
	timeout time.Duration
	poll    time.Duration
	logger  *slog.Logger
}

func defaultOptions() options {
	return options{timeout: DefaultTimeout, poll: DefaultPollInterval, logger: slog.New(slog.DiscardHandler)}
}

func (o options) validate() error {
	if o.timeout <= 0 {
		return fmt.Errorf("pgstore: timeout %s: want more than 0: %w", o.timeout, ErrBadOption)
	}
	if o.poll <= 0 {
		return fmt.Errorf("pgstore: poll interval %s: want more than 0: %w", o.poll, ErrBadOption)
	}
	return nil
}

// WithTimeout bounds each store and session operation (all its round trips
// to the database); the default is [DefaultTimeout]. The server's own
// statement_timeout, set in the connection string, applies as well.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithPollInterval sets how often the store compares its open sessions with
// the database, which catches up a session whose notification was lost;
// the default is [DefaultPollInterval]. Notifications normally wake
// sessions at once, and a reconnect of the listener catches up every open
// session.
func WithPollInterval(d time.Duration) Option { return func(o *options) { o.poll = d } }

// WithLogger sets the logger that receives the listener's warnings (lost
// connection, reconnects, failed catch-ups); nil, the default, discards
// them.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l == nil {
			l = slog.New(slog.DiscardHandler)
		}
		o.logger = l
	}
}
