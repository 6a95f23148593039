package host_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/host"
)

// memEvent is event i of TestLogMemorySurvivesCollections, built from
// fresh heap memory each time: its type, data, source and time location
// are referenced by nothing but the event handed to Append.
func memEvent(i int) host.Event {
	size := 20 + i%300
	if i%211 == 0 {
		size = 5000 + i%3000 // copied on its own, not into a block
	}
	e := host.Event{
		Type: fmt.Sprintf("test/type-%d", i%7),
		Data: bytes.Repeat([]byte{byte('a' + i%26)}, size),
		Time: time.Unix(int64(1_700_000_000+i), 0).UTC(),
	}
	if i%10 == 0 {
		e.Source = &host.Source{Kind: host.SourcePlugin, Plugin: strings.Repeat("p", 1+i%5) + fmt.Sprint(i), Form: "f"}
	}
	if i%100 == 0 {
		e.Time = e.Time.In(time.FixedZone(fmt.Sprint("Z", i), 3600*(1+i%5)))
	}
	return e
}

func checkMemEvent(t *testing.T, i int, got host.Event) {
	t.Helper()
	want := memEvent(i)
	switch {
	case got.Type != want.Type:
		t.Fatalf("event %d: type %q, want %q", i, got.Type, want.Type)
	case !bytes.Equal(got.Data, want.Data):
		t.Fatalf("event %d: data %.20q..., want %.20q...", i, got.Data, want.Data)
	case (got.Source == nil) != (want.Source == nil) || (got.Source != nil && *got.Source != *want.Source):
		t.Fatalf("event %d: source %+v, want %+v", i, got.Source, want.Source)
	case !got.Time.Equal(want.Time) || got.Time.Location().String() != want.Time.Location().String():
		t.Fatalf("event %d: time %v, want %v", i, got.Time, want.Time)
	}
}

// TestLogMemorySurvivesCollections builds logs whose events point to
// memory nothing else references, keeps only snapshots (of a log and of a
// fork of it), and checks every event after collections that reuse and
// overwrite freed memory. A log's chunks past the first are memory the
// collector does not scan, so this fails when the log does not keep what
// its events point to.
func TestLogMemorySurvivesCollections(t *testing.T) {
	const n, forkAt, more = 6000, 3500, 2500
	build := func() (*host.LogBuilder, *host.LogBuilder) {
		b := host.NewLogBuilder(host.Log{})
		for i := range n {
			b.Append(memEvent(i))
		}
		f := host.NewLogBuilder(b.Log().Prefix(forkAt))
		for i := forkAt; i < forkAt+more; i++ {
			f.Append(memEvent(i))
		}
		return b, f
	}
	for _, tt := range []struct {
		name string
		keep func() host.Log // the one snapshot kept
		want int
	}{
		{"the log", func() host.Log { b, _ := build(); return b.Log() }, n},
		{"a fork of it, the log dropped", func() host.Log { _, f := build(); return f.Log() }, forkAt + more},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.keep()
			var junk [][]byte
			for range 4 {
				runtime.GC()
				// Allocate and overwrite what the collection freed, in
				// the sizes the log's memory had.
				junk = junk[:0]
				for range 400 {
					for _, size := range []int{64 << 10, 5000, 300, 48, 16} {
						junk = append(junk, bytes.Repeat([]byte{0xAA}, size))
					}
				}
			}
			if l.Len() != tt.want {
				t.Fatalf("Len = %d, want %d", l.Len(), tt.want)
			}
			for i, e := range l.All() {
				checkMemEvent(t, i, e)
			}
			runtime.KeepAlive(junk)
		})
	}
}

// TestLogBuilderAppendOwnsTheEventsMemory checks that the event Append
// returns, and the one the log holds, share no memory with the caller's.
func TestLogBuilderAppendOwnsTheEventsMemory(t *testing.T) {
	b := host.NewLogBuilder(host.Log{})
	for i := range 3000 {
		data := []byte(fmt.Sprintf(`{"i":%d}`, i))
		src := &host.Source{Kind: host.SourceUser}
		got := b.Append(host.Event{Seq: uint64(i + 1), Type: "test/own", Source: src, Data: data})
		if &got.Data[0] == &data[0] || got.Source == src {
			t.Fatalf("event %d: Append returned the caller's memory", i)
		}
		copy(data, "XXXX")
		src.Kind = "changed"
	}
	for i, e := range b.Log().All() {
		if want := fmt.Sprintf(`{"i":%d}`, i); string(e.Data) != want || e.Source.Kind != host.SourceUser {
			t.Fatalf("event %d: %s %+v, want %s from the user", i, e.Data, e.Source, want)
		}
	}
}
