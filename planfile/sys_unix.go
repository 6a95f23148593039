//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package planfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	oNonblock = unix.O_NONBLOCK
	oNoFollow = unix.O_NOFOLLOW
)

// links returns the hard-link count of a file.
func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}

// renameat renames from to to inside the directory dir, without resolving
// either name through a path outside it.
func renameat(dir *os.File, from, to string) error {
	fd := int(dir.Fd())
	for {
		err := unix.Renameat(fd, from, fd, to)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: rename %s: %w", PluginName, to, err)
		}
		return nil
	}
}

// linkat gives the file named from the second name to inside dir; it fails
// with os.ErrExist when to exists, so it never replaces a file.
func linkat(dir *os.File, from, to string) error {
	fd := int(dir.Fd())
	for {
		err := unix.Linkat(fd, from, fd, to, 0)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EEXIST):
			return os.ErrExist
		}
		return fmt.Errorf("%s: link %s: %w", PluginName, to, err)
	}
}

// isLoop reports an open that met a symbolic link it may not follow.
func isLoop(err error) bool { return errors.Is(err, unix.ELOOP) }

// sameFile reports whether a and b describe the same file: the same device
// and inode, the same type, and the same inode change time, so that an
// inode number reused by a file swapped in does not pass.
func sameFile(a, b os.FileInfo) bool {
	if !os.SameFile(a, b) || a.Mode().Type() != b.Mode().Type() {
		return false
	}
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && ctime(sa) == ctime(sb)
}
