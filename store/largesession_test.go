package store_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// TestLargeSessionKeepsEveryEventsMemory appends events of every size,
// with and without a source, past several of the log's chunks, and checks that each event reads back as
// appended, that no event's data can grow into the next one's, and that
// the caller's buffers are not shared.
func TestLargeSessionKeepsEveryEventsMemory(t *testing.T) {
	for name, st := range map[string]host.Store{"memory": store.NewMemory(), "dir": openDir(t, sessionsDir(t))} {
		t.Run(name, func(t *testing.T) {
			s := mustCreate(t, st, "")
			const n = 6000
			want := make([][]byte, n)
			for i := range n {
				// Mostly short payloads, some large, one in 50 with a
				// source.
				size := 10 + i%200
				if i%97 == 0 {
					size = 5000 + i
				}
				data, err := json.Marshal(map[string]string{"s": strings.Repeat(string(rune('a'+i%26)), size)})
				if err != nil {
					t.Fatal(err)
				}
				e := host.Event{Type: "test/mem", Data: data}
				if i%50 == 0 {
					e.Source = &host.Source{Kind: host.SourcePlugin, Plugin: fmt.Sprint("p", i), Form: "f"}
				}
				got, err := s.Append(e)
				if err != nil {
					t.Fatal(err)
				}
				want[i] = bytes.Clone(got.Data)
				// The caller reuses its buffers.
				clear(data)
				if e.Source != nil {
					e.Source.Plugin = "changed"
				}
			}
			log := s.Events()
			// A careless reader appends to an event's data: that may
			// write into room the event owns, never into another's.
			for _, e := range log.All() {
				_ = append(e.Data, `XXXX`...)
			}
			for i, e := range log.All() {
				if !bytes.Equal(e.Data, want[i]) || !json.Valid(e.Data) {
					t.Fatalf("event %d: data changed to %.40q...", i, e.Data)
				}
				if (e.Source == nil) != (i%50 != 0) || (e.Source != nil && e.Source.Plugin != fmt.Sprint("p", i)) {
					t.Fatalf("event %d: source %+v", i, e.Source)
				}
			}
		})
	}
}
