//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package store_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dshgo/planmode/store"
)

// goneProcess returns the ID of a process of this host that has exited.
func goneProcess(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.ProcessState.Pid()
}

// TestLockedSessionNamesItsHolder: a session file open in one store is
// refused by another with who holds it (host, pid) and since when, from
// the owner record beside it; a record of a gone process of this host is
// reported as stale, and a record that cannot be read (missing, not JSON,
// a link, a FIFO) as none.
func TestLockedSessionNamesItsHolder(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	gone := goneProcess(t)
	since := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	record := func(h string, pid int) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			b, _ := json.Marshal(store.LockHolder{Host: h, PID: pid, Since: since})
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name   string
		change func(t *testing.T, path string) // of the owner record
		holder *store.LockHolder
		stale  bool
		want   string
	}{
		{name: "the record the holder wrote", holder: &store.LockHolder{Host: host, PID: os.Getpid()},
			want: fmt.Sprintf("session file locked by another store: busy on %s (pid %d) since ", host, os.Getpid())},
		{name: "a gone process of this host", change: record(host, gone), holder: &store.LockHolder{Host: host, PID: gone, Since: since}, stale: true,
			want: fmt.Sprintf("its owner record names %s (pid %d) since 2026-03-04T05:06:07Z, a process that is gone: the record is stale", host, gone)},
		{name: "a process of another host", change: record("elsewhere", gone), holder: &store.LockHolder{Host: "elsewhere", PID: gone, Since: since},
			want: fmt.Sprintf("busy on elsewhere (pid %d) since 2026-03-04T05:06:07Z", gone)},
		{name: "no record", change: func(t *testing.T, path string) { os.Remove(path) }, want: "left no owner record"},
		{name: "not JSON", change: func(t *testing.T, path string) { os.WriteFile(path, []byte("{"), 0o600) }, want: "left no owner record"},
		{name: "no pid", change: record(host, 0), want: "left no owner record"},
		{name: "a link to a record", change: func(t *testing.T, path string) {
			record(host, 1)(t, path+".real")
			os.Remove(path)
			if err := os.Symlink(path+".real", path); err != nil {
				t.Fatal(err)
			}
		}, want: "left no owner record"},
		{name: "a FIFO", change: func(t *testing.T, path string) {
			os.Remove(path)
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skip(err)
			}
		}, want: "left no owner record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := sessionsDir(t)
			holder := openDir(t, dir)
			before := time.Now()
			appendN(t, mustCreate(t, holder, "busy"), 1)
			if err := holder.CloseSession("busy"); err != nil {
				t.Fatal(err)
			}
			mustOpen(t, holder, "busy")
			after := time.Now()
			owner := holder.Path("busy") + store.OwnerExt
			if tt.change != nil {
				tt.change(t, owner)
			}
			_, err := openDir(t, dir).Open("busy")
			wantErrIs(t, err, store.ErrLocked)
			var le *store.LockedError
			if !errors.As(err, &le) {
				t.Fatalf("Open = %v, want a *LockedError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open = %v\nwant it to say %q", err, tt.want)
			}
			if le.Stale != tt.stale {
				t.Errorf("Stale = %t, want %t", le.Stale, tt.stale)
			}
			switch {
			case tt.holder == nil && le.Holder != nil:
				t.Errorf("Holder = %+v, want none", *le.Holder)
			case tt.holder != nil && le.Holder == nil:
				t.Errorf("no Holder, want %+v", *tt.holder)
			case tt.holder != nil:
				h := *le.Holder
				if tt.holder.Since.IsZero() {
					if h.Since.Before(before.Add(-time.Second)) || h.Since.After(after.Add(time.Second)) {
						t.Errorf("Since = %v, want the time of the Open (%v to %v)", h.Since, before, after)
					}
					h.Since = time.Time{}
				}
				if h != *tt.holder {
					t.Errorf("Holder = %+v, want %+v", h, *tt.holder)
				}
			}
		})
	}
}

// TestOwnerRecordGoesWithTheSession: the owner record exists while a
// session is open and is removed when it is closed.
func TestOwnerRecordGoesWithTheSession(t *testing.T) {
	d := openDir(t, sessionsDir(t))
	mustCreate(t, d, "rec")
	owner := d.Path("rec") + store.OwnerExt
	if fi, err := os.Stat(owner); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("owner record of an open session: %v, %v; want a 0600 file", fi, err)
	}
	if err := d.CloseSession("rec"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(owner); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after CloseSession the owner record is still there: %v", err)
	}
	mustOpen(t, d, "rec")
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(owner); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("after Close the owner record is still there: %v", err)
	}
}
