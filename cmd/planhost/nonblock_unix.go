//go:build unix

package main

import "syscall"

// openNonblock opens without waiting for a writer, so that inspect refuses
// a FIFO instead of hanging on it.
const openNonblock = syscall.O_NONBLOCK
