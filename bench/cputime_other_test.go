//go:build !unix

package bench_test

import "time"

// cpuTime returns 0 where getrusage(2) is missing.
func cpuTime() time.Duration { return 0 }

// reportCPU reports nothing where getrusage(2) is missing.
func reportCPU(interface{ ReportMetric(float64, string) }, time.Duration, int) {}
