// Package benchcpu reports a benchmark's CPU time per operation beside its
// wall time: on a machine shared with other work the process's CPU time is
// disturbed less than the wall time, which also counts the waits for a CPU.
package benchcpu

import "testing"

// Measure starts measuring the CPU time the process uses, on every thread;
// the function it returns reports it per operation of b as cpu-ns/op. It
// reports nothing where getrusage(2) is missing.
func Measure(b *testing.B) func() {
	start := now()
	return func() {
		if end := now(); b.N > 0 && start > 0 {
			b.ReportMetric(float64((end-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}
