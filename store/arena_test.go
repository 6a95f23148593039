package store_test

import (
	"encoding/json"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// TestAppendAllocatesAlmostNothingOnceLarge checks that appending to a
// large session rarely allocates on the appending goroutine's behalf:
// data and sources are copied into slabs allocated ahead of time. Every
// allocation during a garbage collection makes the appender help it, which
// stalled single appends of a multi-gigabyte log for up to half a second.
func TestAppendAllocatesAlmostNothingOnceLarge(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	s := mustCreate(t, store.NewMemory(), "")
	e := host.Event{
		Type:   host.TypeUserMessage,
		Source: &host.Source{Kind: host.SourceUser},
		Data:   json.RawMessage(`{"content":[{"type":"text","text":"please continue with the next step"}]}`),
	}
	for range 20_000 {
		if _, err := s.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	// Counted over every goroutine, so the slabs allocated in the
	// background count too: about one per 700 appends.
	if got := testing.AllocsPerRun(5_000, func() {
		if _, err := s.Append(e); err != nil {
			t.Fatal(err)
		}
	}); got > 0.05 {
		t.Fatalf("%.3f allocations per append, want at most 0.05", got)
	}
}

// TestAppendedDataIsCappedAndOwned checks that the copies of appended data
// that share a slab are capped, so appending to one event's data cannot
// overwrite the next one's, and that they do not alias the caller's.
func TestAppendedDataIsCappedAndOwned(t *testing.T) {
	s := mustCreate(t, store.NewMemory(), "")
	data := []byte(`{"a":1}`)
	for range 3 {
		if _, err := s.Append(host.Event{Type: "t", Data: data, Source: &host.Source{Kind: host.SourceUser}}); err != nil {
			t.Fatal(err)
		}
	}
	copy(data, `{"b":2}`)
	ev := s.Events()
	if cap(ev[0].Data) != len(ev[0].Data) {
		t.Fatalf("data has cap %d > len %d", cap(ev[0].Data), len(ev[0].Data))
	}
	_ = append(ev[0].Data, `XXXXXXX`...)
	ev[0].Source.Kind = "changed"
	for i, e := range ev {
		if string(e.Data) != `{"a":1}` {
			t.Fatalf("event %d data %s, want {\"a\":1}", i, e.Data)
		}
		if i > 0 && e.Source.Kind != host.SourceUser {
			t.Fatalf("event %d source %+v changed with event 1's", i, *e.Source)
		}
	}
}
