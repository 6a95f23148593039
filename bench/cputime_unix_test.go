//go:build unix

package bench_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, in user and system
// mode, on every thread.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per operation since start as
// cpu-ns/op: on a loaded machine it is disturbed less than the wall time,
// which also counts the time the benchmark waited for a CPU.
func reportCPU(b interface {
	ReportMetric(float64, string)
}, start time.Duration, n int) {
	if n > 0 && start > 0 {
		b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(n), "cpu-ns/op")
	}
}
