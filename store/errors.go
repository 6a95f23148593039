package store

import (
	"errors"

	"github.com/dshgo/planmode/store/eventcheck"
)

// Errors returned by the stores, besides the shared ones in package host
// (host.ErrSessionExists, host.ErrSessionNotFound, host.ErrBadSessionID,
// host.ErrBadFork, host.ErrClosed, host.ErrDuplicate).
var (
	// ErrCorrupt means a session file holds a line that is not the next
	// event of the log: bad JSON, a missing field, or a sequence gap.
	ErrCorrupt = errors.New("corrupt session file")
	// ErrLineTooLong means an event's JSON line exceeds the store's
	// maximum line size, on append or in a file being opened.
	ErrLineTooLong = errors.New("event line too long")
	// ErrBadEvent means an appended event cannot be stored: an empty or
	// non-UTF-8 type or source, data that is not one JSON value of valid
	// UTF-8 with unique names nested at most [MaxDataDepth] deep, or a time
	// outside the years 0 to 9999. It is the error of the check every
	// store makes (package eventcheck).
	ErrBadEvent = eventcheck.ErrBadEvent
	// ErrSessionFailed means a write to the session file failed and the
	// file could not be cut back to the last committed event; the session
	// takes no more appends. Reopening it replays what is on disk.
	ErrSessionFailed = errors.New("session failed")
	// ErrLocked means the session file is open in another store (in this
	// or another process).
	ErrLocked = errors.New("session file locked by another store")
	// ErrInsecureDir means the sessions directory grants group or other
	// users access.
	ErrInsecureDir = errors.New("sessions directory is accessible to other users")
	// ErrFileReplaced means the file at an open session's path was
	// replaced or removed by someone else; the session takes no more
	// appends, since they would go to a file nobody can find.
	ErrFileReplaced = errors.New("session file was replaced or removed")
	// ErrHardLinked means a session file has more than one hard link, so
	// another path can change it; it is neither opened nor appended to.
	ErrHardLinked = errors.New("session file has more than one link")
	// ErrBadOption means an option passed to OpenDir has an invalid value.
	ErrBadOption = errors.New("bad option")
)

// Messages logged at warning level by a [Dir] when it repairs a session
// file it opens. Each record carries the attribute "file" (the path).
const (
	// LogTornLine: the file ended in an incomplete line (a crash during an
	// append); the line was cut off. Attributes: "line", "bytes".
	LogTornLine = "store: cut torn final line"
	// LogMissingNewline: the last event was complete but lacked its
	// newline; the newline was added. Attribute: "line".
	LogMissingNewline = "store: added missing final newline"
	// LogModeTightened: the file was readable or writable by other users;
	// its mode was set to 0600. Attribute: "mode" (the old mode).
	LogModeTightened = "store: tightened session file mode"
)
