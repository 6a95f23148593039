//go:build unix

package wiring

import (
	"io/fs"
	"os"
	"syscall"
)

// OpenNoFollow refuses a symbolic link as the last element of a path.
const OpenNoFollow = syscall.O_NOFOLLOW

// OwnedBySelf reports whether info is of a file this process's user owns.
func OwnedBySelf(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Getuid()
}
