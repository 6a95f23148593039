package store

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/reviewfault"
)

// nthFaults fails the n-th write to any session file from the moment it
// is armed, once, as a full disk does (ENOSPC); the store cuts the file
// back and the session stays usable.
type nthFaults struct {
	mu    sync.Mutex
	left  int  // writes to go before the failing one; 0: disarmed
	fired bool // the armed write failed
}

func (n *nthFaults) arm(k int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.left, n.fired = k, false
}

func (n *nthFaults) hasFired() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.fired
}

func (n *nthFaults) fail() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.left == 0 {
		return false
	}
	n.left--
	n.fired = n.left == 0
	return n.fired
}

// nthFile is a session file that asks nthFaults before each write.
type nthFile struct {
	*os.File
	faults *nthFaults
}

func (f nthFile) Write(b []byte) (int, error) {
	if f.faults.fail() {
		return 0, errDiskFull
	}
	return f.File.Write(b)
}

// TestReviewTurnWriteFaults fails each append of a plan review turn on the
// file store once, with each sync policy: plan mode is left only once the
// approval is in the log, a lost approval leaves plan mode on and says
// why, and the next turns (the last after a reopen) succeed with requests
// that pair every tool call with a result.
func TestReviewTurnWriteFaults(t *testing.T) {
	for _, policy := range []SyncPolicy{SyncEveryAppend, SyncGroup} {
		t.Run(policy.String(), func(t *testing.T) {
			reviewfault.Run(t, func(t *testing.T) reviewfault.Env {
				dir := filepath.Join(t.TempDir(), "sessions")
				d, err := OpenDir(dir, WithSyncPolicy(policy))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = d.Close() })
				faults := &nthFaults{}
				d.wrap = func(f *os.File) file { return nthFile{File: f, faults: faults} }
				return reviewfault.Env{
					Store:  d,
					Model:  reviewfault.StrictModel{},
					FailAt: faults.arm,
					Fired:  faults.hasFired,
					Reopen: func() host.Store {
						_ = d.Close()
						d2, err := OpenDir(dir, WithSyncPolicy(policy))
						if err != nil {
							t.Fatal(err)
						}
						t.Cleanup(func() { _ = d2.Close() })
						return d2
					},
				}
			})
		})
	}
}
