//go:build !unix

package store_test

import "time"

// cpuTime returns 0 where getrusage(2) is missing.
func cpuTime() time.Duration { return 0 }
