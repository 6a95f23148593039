package hosttest_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/store"
)

// newDirStore is the constructor a durable store hands the suite: a fresh
// store per subtest, released when the subtest ends.
func newDirStore(t testing.TB) host.Store {
	t.Helper()
	d, err := store.OpenDir(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatalf("OpenDir: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// conformance is what a store's own test file holds, as a Test function:
//
//	func TestConformance(t *testing.T) { hosttest.TestStore(t, newDirStore) }
func conformance(t *testing.T) { hosttest.TestStore(t, newDirStore) }

// A store author runs the suite from one test of their own, passing a
// constructor that makes a fresh store per subtest.
func Example_storeConformance() {
	tests := []testing.InternalTest{{Name: "TestConformance", F: conformance}}
	fmt.Println(len(tests), "conformance test:", tests[0].Name)
	// Output: 1 conformance test: TestConformance
}
