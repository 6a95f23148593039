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

// firstChunkMin is the capacity of a new log's first chunk.
const firstChunkMin = 8

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

// LogBuilder appends events to a log and hands out its snapshots: the
// storage a [Session] implementation keeps. An append stores the event in
// the last chunk, or in a new one when that is full; it never copies the
// events already stored (only the first chunk, while the log has fewer
// than 1,024 events, grows by copying), so its cost does not grow with the
// log. Snapshots share the chunks.
//
// A LogBuilder is not safe for concurrent use: a session serializes its
// appends and hands snapshots to readers under its own lock. A snapshot
// taken earlier may be read concurrently with later appends.
type LogBuilder struct {
	chunks [][]Event // every chunk's len is its capacity
	n      int
	data   []byte // the free room of the current data block
}

// NewLogBuilder returns a builder whose log starts as prefix. It shares
// prefix's full chunks and copies at most its last 1,023 events.
func NewLogBuilder(prefix Log) *LogBuilder {
	b := &LogBuilder{n: prefix.n}
	if prefix.n == 0 {
		return b
	}
	k := (prefix.n + chunkMask) >> chunkShift
	b.chunks = make([][]Event, k, k+k/2+1)
	copy(b.chunks, prefix.chunks[:k])
	// The last chunk is copied into storage of its own unless it is
	// full, so that appends never write into an array prefix came from.
	last := b.chunks[k-1]
	held := prefix.n - (k-1)<<chunkShift
	if held < chunkLen || len(last) < chunkLen {
		size := chunkLen
		if k == 1 {
			size = max(firstChunkMin, 2*held)
			size = min(size, chunkLen)
		}
		c := make([]Event, size)
		copy(c, last[:held])
		b.chunks[k-1] = c
	}
	return b
}

// Len returns the number of events appended so far.
func (b *LogBuilder) Len() int { return b.n }

// Append adds e at the end of the log and returns it as stored: its data
// and source are copies the log owns, so the caller may reuse its
// buffers.
func (b *LogBuilder) Append(e Event) Event {
	k, j := b.n>>chunkShift, b.n&chunkMask
	switch {
	case k < len(b.chunks) && j < len(b.chunks[k]):
	case k == 0:
		// The first chunk grows by copying, into a new directory: the
		// old one may be shared with snapshots that still read the old
		// chunk, and a directory entry is never rewritten.
		size := firstChunkMin
		if len(b.chunks) == 1 {
			size = min(2*len(b.chunks[0]), chunkLen)
		}
		c := make([]Event, size)
		if len(b.chunks) == 1 {
			copy(c, b.chunks[0][:b.n])
		}
		b.chunks = [][]Event{c}
	default:
		// A new chunk goes past the end of every snapshot's directory;
		// when the directory is full, append moves it (a few words per
		// 1,024 events).
		b.chunks = append(b.chunks, make([]Event, chunkLen))
	}
	if e.Source != nil {
		src := *e.Source
		e.Source = &src
	}
	if e.Data != nil {
		e.Data = b.copyData(e.Data, k > 0)
	}
	b.chunks[k][j] = e
	b.n++
	return e
}

// dataBlockLen is the size of the blocks a long log copies its events'
// data into, and dataDirectMax the largest data copied into one.
const (
	dataBlockLen  = 64 << 10
	dataDirectMax = 4 << 10
)

// copyData returns a copy of d that the log owns. Past the first chunk,
// small data shares blocks: a long log then holds a few thousand objects
// for the garbage collector to track instead of one per event. Each copy's
// capacity ends at its length, so an append to it never writes into the
// next event's.
func (b *LogBuilder) copyData(d []byte, shared bool) []byte {
	if !shared || len(d) == 0 || len(d) > dataDirectMax {
		return append([]byte{}, d...)
	}
	if len(d) > len(b.data) {
		b.data = make([]byte, dataBlockLen)
	}
	out := b.data[:len(d):len(d)]
	copy(out, d)
	b.data = b.data[len(d):]
	return out
}

// Log returns a snapshot of the log: O(1), no allocation.
func (b *LogBuilder) Log() Log {
	k := (b.n + chunkMask) >> chunkShift
	return Log{chunks: b.chunks[:k:k], n: b.n}
}
