package host_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/logcheck"
)

// numbered returns n events with Seq from+1, from+2, ...
func numbered(from, n int) []host.Event {
	out := make([]host.Event, n)
	for i := range out {
		out[i] = host.Event{Seq: uint64(from + i + 1), Type: "test/n"}
	}
	return out
}

func TestLogOfReadsBackTheEvents(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1023, 1024, 1025, 2048, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			l := host.LogOf(numbered(0, n))
			if got := logcheck.Seqs(t, l); !slices.Equal(got, logcheck.Want(0, n)) {
				t.Fatalf("LogOf of %d events reads %v", n, got)
			}
		})
	}
}

func TestLogRangeAndBackwardClamp(t *testing.T) {
	l := host.LogOf(numbered(0, 3000))
	tests := []struct {
		name     string
		from, to int
		want     []uint64
	}{
		{"inside one chunk", 5, 8, []uint64{6, 7, 8}},
		{"across a chunk boundary", 1022, 1026, []uint64{1023, 1024, 1025, 1026}},
		{"from below zero", -4, 2, []uint64{1, 2}},
		{"to past the end", 2998, 9999, []uint64{2999, 3000}},
		{"empty", 10, 10, nil},
		{"reversed", 10, 5, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []uint64
			for i, e := range l.Range(tt.from, tt.to) {
				if uint64(i)+1 != e.Seq {
					t.Fatalf("Range yields index %d with seq %d", i, e.Seq)
				}
				got = append(got, e.Seq)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Range(%d, %d) = %v, want %v", tt.from, tt.to, got, tt.want)
			}
			if c := l.Copy(tt.from, tt.to); len(c) != len(tt.want) {
				t.Errorf("Copy(%d, %d) has %d events, want %d", tt.from, tt.to, len(c), len(tt.want))
			}
		})
	}
	var back []uint64
	for _, e := range l.Backward(1026) {
		back = append(back, e.Seq)
		if len(back) == 4 {
			break
		}
	}
	if want := []uint64{1026, 1025, 1024, 1023}; !slices.Equal(back, want) {
		t.Errorf("Backward(1026) starts %v, want %v", back, want)
	}
	if n := len(slices.Collect(func(yield func(host.Event) bool) {
		for _, e := range l.Backward(-3) {
			yield(e)
		}
	})); n != 0 {
		t.Errorf("Backward(-3) yields %d events, want none", n)
	}
}

func TestLogIndexOutsideTheLogPanicsWithItsBounds(t *testing.T) {
	l := host.LogOf(numbered(0, 3))
	for name, f := range map[string]func(){
		"At(3)":      func() { l.At(3) },
		"At(-1)":     func() { l.At(-1) },
		"ChunkAt(3)": func() { l.ChunkAt(3) },
		"Prefix(4)":  func() { l.Prefix(4) },
		"Prefix(-1)": func() { l.Prefix(-1) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "of 3 events") {
					t.Errorf("%s panicked with %v, want a message naming the log's 3 events", name, r)
				}
			}()
			f()
		})
	}
}

func BenchmarkLogAt(b *testing.B) {
	l := host.LogOf(numbered(0, 1<<20))
	var sum uint64
	i := 0
	for b.Loop() {
		sum += l.At(i).Seq
		i = (i + 7919) & (1<<20 - 1)
	}
	if sum == 0 {
		b.Fatal("read nothing")
	}
}

// TestLogOfChunksChecksTheLayout checks that LogOfChunks reads back the
// events of well-formed chunks and names a chunk count that does not fit.
func TestLogOfChunksChecksTheLayout(t *testing.T) {
	full := numbered(0, host.LogChunkLen)
	l := host.LogOfChunks([][]host.Event{full, numbered(host.LogChunkLen, 5)}, host.LogChunkLen+3)
	if got := logcheck.Seqs(t, l); !slices.Equal(got, logcheck.Want(0, host.LogChunkLen+3)) {
		t.Fatalf("LogOfChunks read back %d events, want %d in order", len(got), host.LogChunkLen+3)
	}
	for name, f := range map[string]func(){
		"too few chunks":   func() { host.LogOfChunks([][]host.Event{full}, host.LogChunkLen+1) },
		"last chunk short": func() { host.LogOfChunks([][]host.Event{numbered(0, 2)}, 3) },
		"negative length":  func() { host.LogOfChunks(nil, -1) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "LogOfChunks") {
					t.Errorf("LogOfChunks panicked with %v, want a message naming it", r)
				}
			}()
			f()
		})
	}
}
