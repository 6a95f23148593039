//go:build unix

package wiring

import "syscall"

// OpenNonblock opens without waiting for a writer, so that inspect refuses
// a FIFO instead of hanging on it.
const OpenNonblock = syscall.O_NONBLOCK
