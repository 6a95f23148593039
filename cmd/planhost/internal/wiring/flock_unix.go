//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package wiring

import (
	"os"
	"syscall"
)

// flock takes an exclusive flock(2) on f, held until f is closed: it
// waits for the lock when wait is true, and fails at once otherwise.
func flock(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = syscall.Flock(int(fd), how) }); err != nil {
		return err
	}
	return ferr
}
