package store

import (
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/dshgo/planmode/host"
)

// A large session's appends allocate no memory: the storage for the log's
// next chunk, and blocks that the events' data and sources are copied
// into, are allocated ahead of need by a short-lived goroutine. An
// allocation can be the one that has to start a garbage collection, or to
// help one mark, which on a heap of gigabytes takes milliseconds; a
// session that allocates nothing while it holds its append lock leaves
// that to the goroutine. A small session allocates as it goes, so that ten
// thousand short sessions hold no blocks they do not fill.
const (
	// provisionFrom is the log length from which a session provisions.
	provisionFrom = 1024
	// dataBlock is the size of a block of event data; data longer than
	// dataDirect is allocated on its own.
	dataBlock  = 64 << 10
	dataDirect = 4 << 10
	// sourceBlock is how many sources a source block holds.
	sourceBlock = 256
)

// eventMemory gives an appended event's data and source memory that the
// session owns: the free room of the current blocks, then of the spare
// ones, or a new allocation when both are short.
type eventMemory struct {
	data, spareData       []byte        // free room of the current and the next data block
	sources, spareSources []host.Source // free room of the current and the next source block
	sourced               bool          // an event with a source was appended
}

// bytes returns a copy of b.
func (m *eventMemory) bytes(b []byte) []byte {
	if len(b) > len(m.data) && len(b) <= dataDirect && m.spareData != nil {
		m.data, m.spareData = m.spareData, nil
	}
	if len(b) > len(m.data) || len(b) > dataDirect {
		return slices.Clone(b)
	}
	out := m.data[:len(b):len(b)]
	copy(out, b)
	m.data = m.data[len(b):]
	return out
}

// source returns a copy of src.
func (m *eventMemory) source(src *host.Source) *host.Source {
	m.sourced = true
	if len(m.sources) == 0 && m.spareSources != nil {
		m.sources, m.spareSources = m.spareSources, nil
	}
	if len(m.sources) == 0 {
		c := *src
		return &c
	}
	out := &m.sources[0]
	*out = *src
	m.sources = m.sources[1:]
	return out
}

// needs says what a session's storage is short of.
type needs struct{ chunk, data, sources bool }

func (n needs) any() bool { return n.chunk || n.data || n.sources }

// provisioner hands what its goroutine allocated to the session's next
// append, with no lock: an append never waits for the goroutine.
type provisioner struct {
	busy    atomic.Bool // a goroutine is allocating
	chunk   atomic.Pointer[[]host.Event]
	data    atomic.Pointer[[]byte]
	sources atomic.Pointer[[]host.Source]
}

// provision keeps a large session's storage ahead of its appends; s.mu is
// held, after an append. It takes what the provisioner has ready and,
// when the session is still short of something, starts a goroutine to
// allocate it.
func (s *session) provision() {
	if s.log.Len() < provisionFrom {
		return
	}
	n := s.short()
	if !n.any() {
		return
	}
	p := &s.prov
	if n.chunk {
		if c := p.chunk.Swap(nil); c != nil {
			s.log.Provide(*c)
		}
	}
	if n.data {
		if d := p.data.Swap(nil); d != nil {
			s.mem.spareData = *d
		}
	}
	if n.sources {
		if src := p.sources.Swap(nil); src != nil {
			s.mem.spareSources = *src
		}
	}
	if n = s.short(); n.any() && p.busy.CompareAndSwap(false, true) {
		go p.allocate(n)
	}
}

// short says what the session holds no spare of: a large session keeps
// one of each ready, so that the goroutine has a whole chunk's or block's
// worth of appends to be scheduled and allocate the next.
func (s *session) short() needs {
	return needs{
		chunk:   !s.log.HasSpare(),
		data:    s.mem.spareData == nil,
		sources: s.mem.sourced && s.mem.spareSources == nil,
	}
}

// pageSize is the smallest page size of the platforms Go runs on.
const pageSize = 4096

// touch writes a zero (what is there already) to every page of b, so that
// the page faults of fresh memory are taken here and not by the append
// that first writes to it.
func touch(b []byte) {
	for i := 0; i < len(b); i += pageSize {
		b[i] = 0
	}
}

// allocate makes what n asks for and leaves it for the session.
func (p *provisioner) allocate(n needs) {
	defer p.busy.Store(false)
	if n.chunk {
		c := host.NewChunk()
		touch(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(c))), len(c)*int(unsafe.Sizeof(c[0]))))
		p.chunk.Store(&c)
	}
	if n.data {
		d := make([]byte, dataBlock)
		touch(d)
		p.data.Store(&d)
	}
	if n.sources {
		src := make([]host.Source, sourceBlock)
		p.sources.Store(&src)
	}
}
