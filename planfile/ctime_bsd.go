//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package planfile

import "syscall"

func ctime(st *syscall.Stat_t) syscall.Timespec { return st.Ctimespec }
