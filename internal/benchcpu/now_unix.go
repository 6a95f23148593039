//go:build unix

package benchcpu

import (
	"syscall"
	"time"
)

// now returns the CPU time the process has used, in user and system mode.
func now() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
