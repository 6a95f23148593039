//go:build !linux

package store_test

import "time"

// threadCPUTime reports false where the thread CPU clock is not read.
func threadCPUTime() (time.Duration, bool) { return 0, false }
