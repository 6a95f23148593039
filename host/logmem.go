package host

import (
	"time"
	"unsafe"
)

// The chunks a LogBuilder allocates past the first hold no memory the
// garbage collector scans: NewChunk allocates them as plain words. A log
// of millions of events is then almost nothing to mark, and a collection
// no longer takes the processor from the appending goroutine for tens of
// milliseconds while it scans the log (docs/performance.md).
//
// That is sound only because the collector does not need to see the
// pointers in those chunks: every pointer an event in them holds (its
// type's bytes, its source, its data, its time's location) points into
// memory the log's logMemory keeps reachable, and snapshots hold the
// logMemory too. LogBuilder.Append is the one place that writes an event
// into a chunk, and it puts the event's memory there first (own). A chunk
// shared with, or copied from, another log keeps that log reachable
// through parents. TestLogMemorySurvivesCollections checks this under
// repeated collections that reuse freed memory.

// Sizes of the blocks an appended event's data and source are copied
// into, and the largest data copied into a block rather than on its own.
const (
	dataBlockLen   = 64 << 10
	dataDirectMax  = 4 << 10
	sourceBlockLen = 256
)

// logMemory keeps reachable what the events of a log's unscanned chunks
// point to. It only grows; a builder writes it while holding its session's
// append lock, and snapshots only hold it.
type logMemory struct {
	types   map[string]string           // interned event types
	locs    map[*time.Location]struct{} // time locations other than UTC and Local
	data    [][]byte                    // data blocks, and data copied on its own
	sources [][]Source                  // source blocks
	parents []Log                       // logs whose chunks this one shares or copied
}

// NewChunk returns storage for one chunk of a log, for
// [LogBuilder.Provide]. It is plain memory that the garbage collector does
// not scan; only a LogBuilder may write events into it.
func NewChunk() []Event {
	words := make([]uint64, chunkLen*int(unsafe.Sizeof(Event{}))/8)
	return unsafe.Slice((*Event)(unsafe.Pointer(unsafe.SliceData(words))), chunkLen)
}

// NewDataBlock returns a block for the data of appended events, for
// [LogBuilder.ProvideData].
func NewDataBlock() []byte { return make([]byte, dataBlockLen) }

// NewSourceBlock returns a block for the sources of appended events, for
// [LogBuilder.ProvideSources].
func NewSourceBlock() []Source { return make([]Source, sourceBlockLen) }

// own returns e with every pointer it holds pointing into memory the log
// keeps reachable: its type interned, its data and source copied into the
// log's blocks, its time's location recorded. An event of the first chunk,
// which is scanned, only gets copies of its data and source of its own, so
// that a small log holds no block it does not fill.
func (b *LogBuilder) own(e Event, scanned bool) Event {
	if scanned {
		if e.Source != nil {
			src := *e.Source
			e.Source = &src
		}
		if e.Data != nil {
			e.Data = append([]byte{}, e.Data...)
		}
		return e
	}
	m := b.memory()
	if t, ok := m.types[e.Type]; ok {
		e.Type = t
	} else {
		t = string([]byte(e.Type)) // a copy the log owns
		m.types[t] = t
		e.Type = t
	}
	if loc := e.Time.Location(); loc != time.UTC && loc != time.Local {
		m.locs[loc] = struct{}{}
	}
	if e.Source != nil {
		e.Source = b.ownSource(e.Source)
	}
	if e.Data != nil {
		e.Data = b.ownData(e.Data)
	}
	return e
}

func (b *LogBuilder) memory() *logMemory {
	if b.mem == nil {
		b.mem = &logMemory{types: map[string]string{}, locs: map[*time.Location]struct{}{}}
	}
	return b.mem
}

// ownData returns a copy of d in memory the log keeps.
func (b *LogBuilder) ownData(d []byte) []byte {
	if len(d) == 0 {
		return []byte{}
	}
	if len(d) > dataDirectMax {
		c := make([]byte, len(d))
		copy(c, d)
		b.mem.data = append(b.mem.data, c)
		return c
	}
	if len(d) > len(b.data) {
		if b.spareData != nil {
			b.data, b.spareData = b.spareData, nil
		} else {
			b.data = NewDataBlock()
		}
		b.mem.data = append(b.mem.data, b.data)
	}
	out := b.data[:len(d):len(d)]
	copy(out, d)
	b.data = b.data[len(d):]
	return out
}

// ownSource returns a copy of src in memory the log keeps.
func (b *LogBuilder) ownSource(src *Source) *Source {
	b.sourced = true
	if len(b.sources) == 0 {
		if b.spareSources != nil {
			b.sources, b.spareSources = b.spareSources, nil
		} else {
			b.sources = NewSourceBlock()
		}
		b.mem.sources = append(b.mem.sources, b.sources)
	}
	out := &b.sources[0]
	*out = *src
	b.sources = b.sources[1:]
	return out
}

// Short reports what the builder holds no spare of: storage for its next
// chunk, a data block, a source block (only once an event with a source
// was appended). A session that must not allocate while it appends
// provides them ahead of need from another goroutine.
func (b *LogBuilder) Short() (chunk, data, sources bool) {
	return b.spare == nil, b.spareData == nil, b.sourced && b.spareSources == nil
}

// ProvideData gives the builder its next data block, made by
// [NewDataBlock] and referenced by nothing else.
func (b *LogBuilder) ProvideData(block []byte) {
	if len(block) != dataBlockLen {
		panic("host: LogBuilder.ProvideData of a block not made by NewDataBlock")
	}
	b.spareData = block
}

// ProvideSources gives the builder its next source block, made by
// [NewSourceBlock] and referenced by nothing else.
func (b *LogBuilder) ProvideSources(block []Source) {
	if len(block) != sourceBlockLen {
		panic("host: LogBuilder.ProvideSources of a block not made by NewSourceBlock")
	}
	b.spareSources = block
}
