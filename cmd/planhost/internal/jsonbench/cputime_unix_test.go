//go:build unix

package jsonbench_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, which a machine
// shared with other work disturbs less than the wall time.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
