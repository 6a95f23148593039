//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package store

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// lockFile takes an exclusive, non-blocking flock(2) on f, held until f is
// closed. A lock held through another open file is ErrLocked.
func lockFile(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		ferr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
	}); err != nil {
		return err
	}
	if errors.Is(ferr, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return ferr
}

// linkCount returns the number of hard links of the file fi describes.
func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// hostName is this host's name, for owner records.
var hostName = sync.OnceValue(func() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
})

// writeOwner writes the owner record of the session file at path, whose
// lock this process holds. The record only informs: when it cannot be
// written (a link or a FIFO planted at its name, a full disk), the
// session opens all the same, and a store that finds it locked says that
// there is no record.
func writeOwner(path string, now time.Time) {
	b, err := json.Marshal(LockHolder{Host: hostName(), PID: os.Getpid(), Since: now.UTC()})
	if err != nil {
		return
	}
	f, err := os.OpenFile(path+OwnerExt, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		_, _ = f.Write(b)
	}
	_ = f.Close()
}

// removeOwner removes the owner record of the session file at path, while
// this process still holds its lock.
func removeOwner(path string) { _ = os.Remove(path + OwnerExt) }

// lockedError describes the lock on the session file at path from its
// owner record: a regular file of at most maxOwnerRecord bytes, read
// without following a link or waiting on a FIFO.
func lockedError(path string) error {
	f, err := os.OpenFile(path+OwnerExt, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return &LockedError{}
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return &LockedError{}
	}
	b, err := io.ReadAll(io.LimitReader(f, maxOwnerRecord+1))
	var h LockHolder
	if err != nil || len(b) > maxOwnerRecord || json.Unmarshal(b, &h) != nil || h.PID <= 0 {
		return &LockedError{}
	}
	return &LockedError{Holder: &h, Stale: h.Host == hostName() && processGone(h.PID)}
}

// processGone reports whether no process of this host has the ID pid
// (pid > 0).
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
