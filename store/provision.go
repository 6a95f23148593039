package store

import (
	"sync/atomic"
	"unsafe"

	"github.com/dshgo/planmode/host"
)

// A large session's appends allocate no memory: the storage for the log's
// next chunk, and the blocks the log copies the events' data and sources
// into, are allocated ahead of need by a short-lived goroutine. An
// allocation can be the one that has to start a garbage collection, or to
// help one mark, which on a heap of gigabytes takes milliseconds; a
// session that allocates nothing while it holds its append lock leaves
// that to the goroutine. A small session allocates as it goes, so that ten
// thousand short sessions hold no blocks they do not fill.

// provisionFrom is the log length from which a session provisions.
const provisionFrom = 1024

// provisioner hands what its goroutine allocated to the session's next
// append, with no lock: an append never waits for the goroutine.
type provisioner struct {
	busy    atomic.Bool // a goroutine is allocating
	chunk   atomic.Pointer[[]host.Event]
	data    atomic.Pointer[[]byte]
	sources atomic.Pointer[[]host.Source]
}

// needs says what a session's log holds no spare of.
type needs struct{ chunk, data, sources bool }

func (n needs) any() bool { return n.chunk || n.data || n.sources }

// provision keeps a large session's storage ahead of its appends; s.mu is
// held, after an append. It gives the log what the provisioner has ready
// and, when the log is still short of something, starts a goroutine to
// allocate it. The log keeps one spare of each, so the goroutine has a
// whole chunk's or block's worth of appends to be scheduled in.
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
			s.log.ProvideData(*d)
		}
	}
	if n.sources {
		if src := p.sources.Swap(nil); src != nil {
			s.log.ProvideSources(*src)
		}
	}
	if n = s.short(); n.any() && p.busy.CompareAndSwap(false, true) {
		go p.allocate(n)
	}
}

func (s *session) short() needs {
	chunk, data, sources := s.log.Short()
	return needs{chunk, data, sources}
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
		d := host.NewDataBlock()
		touch(d)
		p.data.Store(&d)
	}
	if n.sources {
		src := host.NewSourceBlock()
		p.sources.Store(&src)
	}
}
