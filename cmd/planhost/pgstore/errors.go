package pgstore

import (
	"errors"
	"strings"
)

// Errors returned by the store, besides the shared ones in package host
// (host.ErrSessionExists, host.ErrSessionNotFound, host.ErrBadSessionID,
// host.ErrBadFork, host.ErrClosed, host.ErrDuplicate) and store.ErrBadEvent
// for an event that cannot be stored.
var (
	// ErrCorrupt means the rows of a session are not its log: a gap in
	// the sequence numbers, a length that disagrees with the events, or a
	// source that is not JSON.
	ErrCorrupt = errors.New("corrupt session rows")
	// ErrSchemaTooNew means the database was migrated by a newer version
	// of this package.
	ErrSchemaTooNew = errors.New("database schema is newer than this program")
	// ErrBadOption means an option has an invalid value.
	ErrBadOption = errors.New("bad option")
)

// redacted hides a secret (the password) in an error's text, keeping the
// error chain for errors.Is and errors.As.
type redacted struct {
	err    error
	secret string
}

func (r redacted) Error() string { return strings.ReplaceAll(r.err.Error(), r.secret, "xxxxx") }
func (r redacted) Unwrap() error { return r.err }

// redact returns err with every occurrence of secret in its text hidden.
func redact(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return redacted{err: err, secret: secret}
}
