//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package store

import (
	"os"
	"time"
)

// lockFile does nothing where flock(2) is missing: there, keeping each
// sessions directory to one Dir is up to the host.
func lockFile(*os.File) error { return nil }

// linkCount returns 1: where flock(2) is missing, link counts are not
// checked.
func linkCount(os.FileInfo) uint64 { return 1 }

// Without locks there are no owner records.

func writeOwner(string, time.Time) {}

func removeOwner(string) {}

func lockedError(string) error { return ErrLocked }
