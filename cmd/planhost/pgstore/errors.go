package pgstore

import "errors"

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
