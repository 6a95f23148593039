package store

import (
	"runtime"
	"unsafe"

	"github.com/dshgo/planmode/host"
)

// eventMemory holds the copies a session makes of appended events' data
// and sources. It hands them out of slabs, so that most appends allocate
// nothing: while a garbage collection is running, a goroutine that
// allocates must help it in proportion ("mark assist"), which on a heap
// of gigabytes stalled single appends for tens to hundreds of
// milliseconds. Once a session is large, the next slab is allocated by a
// goroutine of its own while the current one fills, so the appending
// goroutine allocates only when that goroutine is late. Slabs start
// small and double, so a small session keeps little spare room. It is
// guarded by the session's append lock.
type eventMemory struct {
	data    slabs[byte]
	sources slabs[host.Source]
}

// cloneData returns a copy of b, capped so that an append to it
// allocates rather than overwriting the next event's data.
func (m *eventMemory) cloneData(b []byte) []byte {
	if len(b) > maxSlabbedData {
		return append([]byte(nil), b...)
	}
	out := m.data.alloc(len(b))
	copy(out, b)
	return out
}

// cloneSource returns a copy of *src.
func (m *eventMemory) cloneSource(src *host.Source) *host.Source {
	out := m.sources.alloc(1)
	out[0] = *src
	return &out[0]
}

const (
	// maxSlabBytes is the size slabs grow to.
	maxSlabBytes = 64 << 10
	// minSlab is the size, in elements, of a session's first slab.
	minSlab = 16
	// maxSlabbedData is the longest data kept in a slab; longer data
	// is allocated on its own.
	maxSlabbedData = maxSlabBytes / 16
)

// slabs hands out slices of T from slabs of growing size; see
// eventMemory.
type slabs[T any] struct {
	free []T
	size int // of the last slab
	// ready receives the next slab from the goroutine that allocates
	// it; once slabs are full size, one such goroutine runs or has sent
	// at any time.
	ready chan []T
}

// alloc returns n zero elements with len and cap n; n is at most
// maxSlabBytes in bytes.
func (s *slabs[T]) alloc(n int) []T {
	if len(s.free) < n {
		slab := s.next(n)
		if slab == nil {
			// The next slab is late, most likely because the goroutine
			// allocating it is helping a garbage collection. Allocate
			// just this, so that what the appender owes the collector
			// stays as small as it can be.
			return make([]T, n)
		}
		s.free = slab
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}

// next returns a fresh slab of at least n elements, or nil if the one
// being allocated in the background is not ready yet.
func (s *slabs[T]) next(n int) []T {
	maxSlab := maxSlabBytes / int(unsafe.Sizeof(*new(T)))
	if s.size < maxSlab {
		s.size = max(minSlab, 2*s.size)
		for s.size < n {
			s.size *= 2
		}
		s.size = min(s.size, maxSlab)
		slab := make([]T, s.size)
		if s.size == maxSlab {
			s.refill(maxSlab)
		}
		return slab
	}
	for try := 0; ; try++ {
		select {
		case slab := <-s.ready:
			s.refill(maxSlab)
			return slab
		default:
		}
		if try > 0 {
			return nil
		}
		runtime.Gosched() // let it run, if it only waits for a CPU
	}
}

// refill starts a goroutine that allocates the next slab.
func (s *slabs[T]) refill(n int) {
	if s.ready == nil {
		s.ready = make(chan []T, 1)
	}
	go func(ready chan<- []T) { ready <- make([]T, n) }(s.ready)
}
