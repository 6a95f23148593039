//go:build !race

// The race detector makes sync.Pool drop what is put back at random, so
// under it the pooled JSON scanners an append borrows allocate; CI runs
// these checks without it (.ci/run, "allocation checks").

package store_test

import (
	"encoding/json"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// TestLargeSessionAppendsDoNotAllocate checks that an append to a large
// memory session allocates nothing per event: its data shares a block,
// and a chunk and a block are allocated once per thousand appends or so,
// which AllocsPerRun's whole-number average does not count.
func TestLargeSessionAppendsDoNotAllocate(t *testing.T) {
	s := mustCreate(t, store.NewMemory(), "")
	e := host.Event{Type: host.TypeAssistantMessage, Data: json.RawMessage(`{"text":"I will read the file and then summarise it."}`)}
	for range 3000 {
		if _, err := s.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(20_000, func() {
		if _, err := s.Append(e); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("an append to a large session allocates %v times, want 0", allocs)
	}
}
