//go:build !unix

package wiring

import "io/fs"

// OpenNoFollow is 0 where the system has no O_NOFOLLOW.
const OpenNoFollow = 0

// OwnedBySelf is true where the system reports no owner.
func OwnedBySelf(fs.FileInfo) bool { return true }
