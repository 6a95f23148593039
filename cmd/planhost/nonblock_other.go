//go:build !unix

package main

// openNonblock is 0 where the system has no O_NONBLOCK for open.
const openNonblock = 0
