//go:build unix

package wiring_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
)

// TestPrivateDirSweepLeavesWhatIsNoDirectory: a symbolic link or a FIFO
// that bears the prefix is never followed, opened for long or removed,
// and the directory a link points to keeps its files.
func TestPrivateDirSweepLeavesWhatIsNoDirectory(t *testing.T) {
	parent, outside := t.TempDir(), t.TempDir()
	const prefix = "planhost-private-"
	kept := filepath.Join(outside, "kept")
	if err := os.WriteFile(kept, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, prefix+"test-link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(parent, prefix+"test-fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	_, release, err := wiring.PrivateDir(parent, prefix, "test-")
	if err != nil {
		t.Fatal(err)
	}
	release()
	for _, p := range []string{link, fifo, kept} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was swept: %v", p, err)
		}
	}
}
