package hostkit

import "github.com/dshgo/planmode/host"

// chunkLen is the length of every chunk but the first, which grows from
// firstChunkMin events to chunkLen.
const (
	chunkLen      = host.LogChunkLen
	firstChunkMin = 8
)

// LogBuilder appends events to a log and hands out its snapshots: the
// storage a [host.Session] implementation keeps. An append stores the event in
// the last chunk, or in a new one when that is full; it never copies the
// events already stored (only the first chunk, while the log has fewer
// than 1,024 events, grows by copying), so its cost does not grow with the
// log. Snapshots share the chunks.
//
// A LogBuilder is not safe for concurrent use: a session serializes its
// appends and hands snapshots to readers under its own lock. A snapshot
// taken earlier may be read concurrently with later appends.
type LogBuilder struct {
	chunks [][]host.Event // every chunk's len is its capacity
	n      int
	data   []byte // the free room of the current data block
}

// NewLogBuilder returns a builder whose log starts as prefix. It shares
// prefix's full chunks and copies at most its last 1,023 events.
func NewLogBuilder(prefix host.Log) *LogBuilder {
	b := &LogBuilder{n: prefix.Len()}
	if b.n == 0 {
		return b
	}
	k := (prefix.Len() + chunkLen - 1) / chunkLen
	b.chunks = make([][]host.Event, k, k+k/2+1)
	for i := range k {
		b.chunks[i], _ = prefix.ChunkAt(i * chunkLen)
	}
	// The last chunk is copied into storage of its own unless it is
	// full, so that appends never write into an array prefix came from.
	last := b.chunks[k-1]
	held := b.n - (k-1)*chunkLen
	if held < chunkLen || len(last) < chunkLen {
		size := chunkLen
		if k == 1 {
			size = max(firstChunkMin, 2*held)
			size = min(size, chunkLen)
		}
		c := make([]host.Event, size)
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
func (b *LogBuilder) Append(e host.Event) host.Event {
	k, j := b.n/chunkLen, b.n%chunkLen
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
		c := make([]host.Event, size)
		if len(b.chunks) == 1 {
			copy(c, b.chunks[0][:b.n])
		}
		b.chunks = [][]host.Event{c}
	default:
		// A new chunk goes past the end of every snapshot's directory;
		// when the directory is full, append moves it (a few words per
		// 1,024 events).
		b.chunks = append(b.chunks, make([]host.Event, chunkLen))
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
func (b *LogBuilder) Log() host.Log {
	k := (b.n + chunkLen - 1) / chunkLen
	return host.LogOfChunks(b.chunks[:k:k], b.n)
}
