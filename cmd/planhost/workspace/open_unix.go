//go:build unix

package workspace

import "syscall"

// openNonblock opens without waiting for a writer, so that a FIFO (or a
// device) in the workspace can be refused instead of hanging the call.
const openNonblock = syscall.O_NONBLOCK
