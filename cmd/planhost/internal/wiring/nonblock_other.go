//go:build !unix

package wiring

// OpenNonblock is 0 where the system has no O_NONBLOCK for open.
const OpenNonblock = 0
