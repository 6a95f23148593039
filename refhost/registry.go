package refhost

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/dshgo/planmode/host"
)

// entry is one registered item; its address identifies the registration so
// that a stale unregister never removes a later item of the same name.
type entry[T any] struct {
	name string
	item T
}

// registry is a named, copy-on-write list. Writers serialize on mu and
// publish an immutable snapshot built by build; readers load the snapshot
// without locking, which keeps the per-step cost of the loop low.
type registry[T, S any] struct {
	what  string // names the registry in errors, for example "section"
	build func(items []*entry[T], version uint64) *S

	mu      sync.Mutex
	items   []*entry[T]
	version uint64
	snap    atomic.Pointer[S]
}

func newRegistry[T, S any](what string, build func([]*entry[T], uint64) *S) *registry[T, S] {
	r := &registry[T, S]{what: what, build: build}
	r.snap.Store(build(nil, 0))
	return r
}

// load returns the current snapshot.
func (r *registry[T, S]) load() *S { return r.snap.Load() }

// add registers item under name, first in the list when prepend is set and
// last otherwise. A taken name is ErrDuplicate.
func (r *registry[T, S]) add(name string, item T, prepend bool) (func(), error) {
	if name == "" {
		return nil, fmt.Errorf("refhost: %s: %w", r.what, ErrEmptyName)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.items {
		if e.name == name {
			return nil, fmt.Errorf("refhost: %s %q: %w", r.what, name, host.ErrDuplicate)
		}
	}
	e := &entry[T]{name: name, item: item}
	if prepend {
		r.items = slices.Insert(slices.Clip(r.items), 0, e)
	} else {
		r.items = append(slices.Clip(r.items), e)
	}
	r.publishLocked()
	var once sync.Once
	return func() { once.Do(func() { r.remove(e) }) }, nil
}

func (r *registry[T, S]) remove(e *entry[T]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.Index(r.items, e)
	if i < 0 {
		return
	}
	r.items = slices.Delete(slices.Clone(r.items), i, i+1)
	r.publishLocked()
}

func (r *registry[T, S]) publishLocked() {
	r.version++
	r.snap.Store(r.build(r.items, r.version))
}
