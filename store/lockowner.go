package store

import (
	"fmt"
	"time"
)

// OwnerExt ends the name of a session file's owner record: while a [Dir]
// holds session "abc" open (on systems with flock(2)), the file
// "abc.jsonl.owner" beside it names the process, so that another store
// that finds the session locked can say who holds it.
const OwnerExt = ".owner"

// maxOwnerRecord bounds the owner record a store reads.
const maxOwnerRecord = 4 << 10

// Texts of a [LockedError].
const (
	lockedBusy     = "busy on %s (pid %d) since %s"
	lockedStale    = "its owner record names %s (pid %d) since %s, a process that is gone: the record is stale, and the store holding the lock now left none"
	lockedNoRecord = "the store holding it left no owner record"
)

// LockHolder is what a session file's owner record says of the process
// whose store holds the file open.
type LockHolder struct {
	// Host is the host name of the process.
	Host string `json:"host"`
	// PID is its process ID.
	PID int `json:"pid"`
	// Since is when its store took the lock.
	Since time.Time `json:"since"`
}

// LockedError is the error of opening a session file that another store
// (in this or another process) holds open. It matches [ErrLocked].
type LockedError struct {
	// Holder is what the owner record says; nil when there is no record
	// that could be read (a store of an earlier version, or one that is
	// opening the file at this very moment).
	Holder *LockHolder
	// Stale is set when the record names a process of this host that no
	// longer runs: the record was left by an earlier holder, and the store
	// holding the lock now wrote none.
	Stale bool
}

// Error says who holds the lock, and since when.
func (e *LockedError) Error() string {
	switch h := e.Holder; {
	case h == nil:
		return ErrLocked.Error() + "; " + lockedNoRecord
	case e.Stale:
		return ErrLocked.Error() + "; " + fmt.Sprintf(lockedStale, h.Host, h.PID, h.Since.UTC().Format(time.RFC3339))
	}
	return ErrLocked.Error() + ": " + fmt.Sprintf(lockedBusy, e.Holder.Host, e.Holder.PID, e.Holder.Since.UTC().Format(time.RFC3339))
}

// Is reports whether target is [ErrLocked].
func (e *LockedError) Is(target error) bool { return target == ErrLocked }
