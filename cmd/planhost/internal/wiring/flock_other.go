//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package wiring

import (
	"errors"
	"os"
)

// flock fails where the system has no flock(2): there, no staging
// directory is known to be abandoned, and none is swept.
func flock(*os.File, bool) error { return errors.ErrUnsupported }
