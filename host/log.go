package host

import (
	"fmt"
	"iter"
)

// chunkShift and chunkLen fix the size of a Log's chunks: every chunk but
// the first holds chunkLen events (80 KiB); the first grows from a few
// events to chunkLen, so a small session holds no more than it needs.
const (
	chunkShift = 10
	chunkLen   = 1 << chunkShift
	chunkMask  = chunkLen - 1
)

// Log is an immutable snapshot of a session's events, in log order: what
// [Session.Events] returns.
//
// The events are kept in chunks of fixed size that are never moved or
// rewritten, so a session grows its log without ever copying it and a
// snapshot costs O(1) with no allocation: later appends never change the
// events a snapshot holds or its length. The events alias the session's
// storage and must be treated as read-only.
//
// Read it by index ([Log.At]), with the iterators ([Log.All],
// [Log.Range]), or a chunk at a time ([Log.ChunkAt]) in loops that must
// not copy events. The zero Log is empty.
type Log struct {
	// chunks[k] holds events k*chunkLen on; chunks[0] may be shorter than
	// chunkLen, the others are not (except in a Log made by LogOf, whose
	// last chunk ends at n). Only the first n events are part of the Log.
	chunks [][]Event
	n      int
}

// LogOf returns a Log of events. The Log aliases events, which must not be
// modified afterwards. It allocates one small slice header per 1,024
// events and copies no event; it suits tests, tools and hosts that read a
// log they already hold in one slice.
func LogOf(events []Event) Log {
	n := len(events)
	if n == 0 {
		return Log{}
	}
	chunks := make([][]Event, 0, (n+chunkMask)>>chunkShift)
	for lo := 0; lo < n; lo += chunkLen {
		hi := min(lo+chunkLen, n)
		chunks = append(chunks, events[lo:hi:hi])
	}
	return Log{chunks: chunks, n: n}
}

// Len returns the number of events in the log.
func (l Log) Len() int { return l.n }

// At returns event i (0-based). It panics when i is outside [0, Len()).
func (l Log) At(i int) Event {
	if uint(i) >= uint(l.n) {
		panic(fmt.Sprintf("host: Log.At(%d) on a log of %d events", i, l.n))
	}
	return l.chunks[i>>chunkShift][i&chunkMask]
}

// ChunkAt returns the stored run of events that holds event i, cut at the
// log's end, and the index of its first event: chunk[j] is event first+j.
// Loops that must not copy events walk the log a chunk at a time:
//
//	for i := 0; i < l.Len(); {
//		chunk, first := l.ChunkAt(i)
//		for j := i - first; j < len(chunk); j++ {
//			e := &chunk[j] // event first+j, not copied
//		}
//		i = first + len(chunk)
//	}
//
// It panics when i is outside [0, Len()). The chunk aliases the session's
// storage and must be treated as read-only.
func (l Log) ChunkAt(i int) (chunk []Event, first int) {
	if uint(i) >= uint(l.n) {
		panic(fmt.Sprintf("host: Log.ChunkAt(%d) on a log of %d events", i, l.n))
	}
	k := i >> chunkShift
	first = k << chunkShift
	c := l.chunks[k]
	return c[:min(len(c), l.n-first)], first
}

// All returns an iterator over the log's index, event pairs, in order.
func (l Log) All() iter.Seq2[int, Event] {
	return l.Range(0, l.n)
}

// Range returns an iterator over the index, event pairs of events
// [from, to), in order. from and to are clamped to [0, Len()].
func (l Log) Range(from, to int) iter.Seq2[int, Event] {
	from, to = max(from, 0), min(to, l.n)
	return func(yield func(int, Event) bool) {
		for i := from; i < to; {
			chunk, first := l.ChunkAt(i)
			chunk = chunk[:min(len(chunk), to-first)]
			for j := i - first; j < len(chunk); j++ {
				if !yield(first+j, chunk[j]) {
					return
				}
			}
			i = first + len(chunk)
		}
	}
}

// Backward returns an iterator over the index, event pairs of events
// [0, end), last first. end is clamped to [0, Len()].
func (l Log) Backward(end int) iter.Seq2[int, Event] {
	end = min(max(end, 0), l.n)
	return func(yield func(int, Event) bool) {
		for i := end - 1; i >= 0; {
			chunk, first := l.ChunkAt(i)
			for j := i - first; j >= 0; j-- {
				if !yield(first+j, chunk[j]) {
					return
				}
			}
			i = first - 1
		}
	}
}

// Prefix returns the Log of the first n events. It panics when n is
// outside [0, Len()].
func (l Log) Prefix(n int) Log {
	if n < 0 || n > l.n {
		panic(fmt.Sprintf("host: Log.Prefix(%d) on a log of %d events", n, l.n))
	}
	if n == 0 {
		return Log{}
	}
	k := (n + chunkMask) >> chunkShift
	return Log{chunks: l.chunks[:k:k], n: n}
}

// Copy returns the events [from, to) in a new slice that does not alias
// the log. from and to are clamped to [0, Len()].
func (l Log) Copy(from, to int) []Event {
	from, to = max(from, 0), min(to, l.n)
	if from >= to {
		return []Event{}
	}
	out := make([]Event, 0, to-from)
	for i := from; i < to; {
		chunk, first := l.ChunkAt(i)
		chunk = chunk[:min(len(chunk), to-first)]
		out = append(out, chunk[i-first:]...)
		i = first + len(chunk)
	}
	return out
}

// Slice returns every event of the log in a new slice that does not alias
// it: Copy(0, Len()).
func (l Log) Slice() []Event { return l.Copy(0, l.n) }

// LogChunkLen is the number of events in every chunk of a [Log] but the
// last (see [LogOfChunks]).
const LogChunkLen = chunkLen

// LogOfChunks returns the Log of the first n events held in chunks, for
// session storage that keeps its events in chunks that it never moves or
// rewrites (package hostkit's LogBuilder): chunks[k] holds events
// k*[LogChunkLen] on; every chunk but the last holds exactly LogChunkLen
// events and the last at least the rest. The Log aliases chunks, which
// must not change afterwards. It costs O(1) and allocates nothing; it
// panics when the chunk count or the last chunk's length does not fit n.
func LogOfChunks(chunks [][]Event, n int) Log {
	k := (n + chunkMask) >> chunkShift
	if n < 0 || len(chunks) != k || (k > 0 && len(chunks[k-1]) < n-(k-1)<<chunkShift) {
		panic(fmt.Sprintf("host: LogOfChunks: %d chunks do not hold %d events", len(chunks), n))
	}
	return Log{chunks: chunks, n: n}
}
