package store_test

import (
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// TestLargeLogGrowsWhileRead appends past dozens of the log's chunks
// while readers read snapshots in place (not copies) and a subscriber
// folds, and checks that no event is lost, duplicated or changed, and that
// every snapshot is a consistent prefix that never changes.
func TestLargeLogGrowsWhileRead(t *testing.T) {
	const n = 40_000
	s := mustCreate(t, store.NewMemory(), "")
	var seen uint64
	defer s.Subscribe(0, func(e host.Event) {
		if e.Seq != seen+1 {
			t.Errorf("subscriber saw seq %d after %d", e.Seq, seen)
		}
		seen = e.Seq
	})()
	done := make(chan struct{})
	var readers sync.WaitGroup
	var snaps []host.Log
	var snapsMu sync.Mutex
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for k := 0; ; k++ {
				snap := s.Events()
				for i, e := range snap.Backward(snap.Len()) {
					if i < snap.Len()-64 {
						break
					}
					if e.Seq != uint64(i)+1 {
						t.Errorf("snapshot of %d: index %d has seq %d", snap.Len(), i, e.Seq)
						return
					}
				}
				if k%97 == 0 {
					snapsMu.Lock()
					snaps = append(snaps, snap)
					snapsMu.Unlock()
				}
				select {
				case <-done:
					return
				case <-time.After(20 * time.Microsecond):
				}
			}
		}()
	}
	e := host.Event{Type: "test/grow"}
	for range n {
		if _, err := s.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	readers.Wait()
	all := s.Events().Slice()
	if len(all) != n || seen != n {
		t.Fatalf("Len %d, subscriber saw %d; want %d", len(all), seen, n)
	}
	for i, e := range all {
		if e.Seq != uint64(i)+1 || e.Type != "test/grow" {
			t.Fatalf("event %d is %+v", i, e)
		}
	}
	// Snapshots taken during growth still hold what they held.
	for _, snap := range snaps {
		for i, e := range snap.All() {
			if e.Seq != all[i].Seq || e.Type != all[i].Type || !e.Time.Equal(all[i].Time) {
				t.Fatalf("snapshot event %d changed", i)
			}
		}
	}
	f, err := s.Fork(n / 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.Append(e); err != nil || got.Seq != n/2+1 {
		t.Fatalf("append to a large fork: %d, %v", got.Seq, err)
	}
}
