// Package logcheck is a test helper for host.Log implementations: it
// reads a log through every reader and checks that they agree.
package logcheck

import (
	"slices"
	"testing"

	"github.com/dshgo/planmode/host"
)

// Seqs lists the Seq of every event the log's readers give, checking that
// At, All, Backward, ChunkAt and Slice agree with each other.
func Seqs(t testing.TB, l host.Log) []uint64 {
	t.Helper()
	var all []uint64
	for i, e := range l.All() {
		if at := l.At(i); at.Seq != e.Seq {
			t.Fatalf("At(%d).Seq = %d, All gives %d", i, at.Seq, e.Seq)
		}
		all = append(all, e.Seq)
	}
	if len(all) != l.Len() {
		t.Fatalf("All gave %d events, Len is %d", len(all), l.Len())
	}
	var chunked []uint64
	for i := 0; i < l.Len(); {
		chunk, first := l.ChunkAt(i)
		if first > i || first+len(chunk) <= i {
			t.Fatalf("ChunkAt(%d) = %d events from %d: does not hold event %d", i, len(chunk), first, i)
		}
		for _, e := range chunk {
			chunked = append(chunked, e.Seq)
		}
		i = first + len(chunk)
	}
	var back []uint64
	for _, e := range l.Backward(l.Len()) {
		back = append(back, e.Seq)
	}
	slices.Reverse(back)
	var sliced []uint64
	for _, e := range l.Slice() {
		sliced = append(sliced, e.Seq)
	}
	for name, got := range map[string][]uint64{"ChunkAt": chunked, "Backward": back, "Slice": sliced} {
		if !slices.Equal(got, all) {
			t.Fatalf("%s gives %v, All gives %v", name, got, all)
		}
	}
	return all
}

// Want returns the Seqs from+1 … from+n.
func Want(from, n int) []uint64 {
	var out []uint64
	for i := range n {
		out = append(out, uint64(from+i+1))
	}
	return out
}
