//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package store

import "os"

// lockFile does nothing where flock(2) is missing: there, keeping each
// sessions directory to one Dir is up to the host.
func lockFile(*os.File) error { return nil }

// linkCount returns 1: where flock(2) is missing, link counts are not
// checked.
func linkCount(os.FileInfo) uint64 { return 1 }
