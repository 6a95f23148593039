//go:build !unix

package workspace

// openNonblock is 0 where the system has no O_NONBLOCK for open.
const openNonblock = 0
