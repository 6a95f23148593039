package pgstore

import (
	"fmt"
	"log/slog"
	"os"
	"time"
)

// Defaults of the options.
const (
	// DefaultTimeout bounds each operation's round trips to the database.
	DefaultTimeout = 30 * time.Second
	// DefaultPollInterval is how often open sessions are compared with the
	// database in case a notification was missed.
	DefaultPollInterval = 5 * time.Second
	// DefaultLeaseExpiry is how long a turn lease lives without renewal:
	// the bound on how long a crashed process's turn blocks the session.
	DefaultLeaseExpiry = 10 * time.Second
	// minLeaseExpiry keeps the renewals (every third of the expiry) from
	// flooding the database.
	minLeaseExpiry = 300 * time.Millisecond
)

// Option configures a [Store].
type Option func(*options)

type options struct {
	timeout     time.Duration
	poll        time.Duration
	logger      *slog.Logger
	leaseExpiry time.Duration
	holderHost  string
	holderPID   int
	noEvents    bool // notifications carry no events
}

func defaultOptions() options {
	h, err := os.Hostname()
	if err != nil || h == "" {
		h = "unknown host"
	}
	return options{timeout: DefaultTimeout, poll: DefaultPollInterval, logger: slog.New(slog.DiscardHandler),
		leaseExpiry: DefaultLeaseExpiry, holderHost: h, holderPID: os.Getpid()}
}

func (o options) validate() error {
	if o.timeout <= 0 {
		return fmt.Errorf("pgstore: timeout %s: want more than 0: %w", o.timeout, ErrBadOption)
	}
	if o.poll <= 0 {
		return fmt.Errorf("pgstore: poll interval %s: want more than 0: %w", o.poll, ErrBadOption)
	}
	if o.leaseExpiry < minLeaseExpiry {
		return fmt.Errorf("pgstore: lease expiry %s: want at least %s: %w", o.leaseExpiry, minLeaseExpiry, ErrBadOption)
	}
	return nil
}

// WithLeaseExpiry sets how long a turn lease lives without renewal; the
// default is [DefaultLeaseExpiry], the least 300ms. The holder renews it
// every third of that while its turn runs, so a crashed holder's turn is
// taken over within this bound, and a holder cut off from the database
// for longer loses its turn.
func WithLeaseExpiry(d time.Duration) Option { return func(o *options) { o.leaseExpiry = d } }

// WithLeaseHolder sets the host name and process ID a turn lease names
// as its holder (shown to the other processes that find the session
// busy); the default is this machine's host name and this process's ID.
func WithLeaseHolder(hostName string, pid int) Option {
	return func(o *options) { o.holderHost, o.holderPID = hostName, pid }
}

// WithNotifyEvents sets whether the notifications of this store's appends
// carry the events (the default) or only the session and its length, so
// that other processes read the events from the table. Any role that can
// connect to the database can LISTEN, without the table privileges
// reading the events needs: turn carrying off where such roles must not
// see the transcripts.
func WithNotifyEvents(on bool) Option { return func(o *options) { o.noEvents = !on } }

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
