//go:build unix

package main

import (
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow refuses a symbolic link as the last element of a path.
const openNoFollow = syscall.O_NOFOLLOW

// ownedBySelf reports whether info is of a file this process's user owns.
func ownedBySelf(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Getuid()
}
