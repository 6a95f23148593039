//go:build linux

package store_test

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPUTime returns the CPU time the calling OS thread has used, and
// true. Time the thread spends waiting for a CPU is not counted, so on a
// shared machine it shows an operation's own cost where wall time shows
// the machine's too. The caller locks its goroutine to the thread.
func threadCPUTime() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
