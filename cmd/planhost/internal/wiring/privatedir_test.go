package wiring_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
)

// TestPrivateDirSweepsOnlyTheAbandoned: a private directory nobody holds
// (its process killed) is removed by the next PrivateDir, while the ones
// that processes making theirs at the same moment hold all survive every
// sweep; each is gone once released.
func TestPrivateDirSweepsOnlyTheAbandoned(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock(2): nothing is swept")
	}
	parent := t.TempDir()
	const prefix = "planhost-private-"
	abandoned := filepath.Join(parent, prefix+"test-abandoned")
	if err := os.Mkdir(abandoned, 0o700); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(parent, "planhost-other")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}

	const n = 16
	paths := make([]string, n)
	releases := make([]func(), n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			path, release, err := wiring.PrivateDir(parent, prefix, "test-")
			if err != nil {
				t.Error(err)
				return
			}
			paths[i], releases[i] = path, release
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for _, p := range paths {
		if info, err := os.Stat(p); err != nil || !info.IsDir() || !strings.HasPrefix(filepath.Base(p), prefix+"test-") {
			t.Errorf("held private directory %s: %v", p, err)
		}
	}
	if _, err := os.Stat(abandoned); !os.IsNotExist(err) {
		t.Errorf("the abandoned directory was not swept: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a directory of another name was swept: %v", err)
	}
	for _, release := range releases {
		release()
	}
	for _, p := range paths {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("released private directory %s: %v", p, err)
		}
	}
}
