package refhost

import (
	"fmt"
	"slices"
	"sync"

	"github.com/dshgo/planmode/host"
)

// entry is one registered item; its address identifies the registration so
// that a stale unregister never removes a later item of the same name.
type entry[T any] struct {
	name string
	item T
}

// registry is a named list under a mutex.
type registry[T any] struct {
	what string // names the registry in errors, for example "section"

	mu    sync.Mutex
	items []*entry[T]
}

// all returns the items in list order.
func (r *registry[T]) all() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	items := make([]T, len(r.items))
	for i, e := range r.items {
		items[i] = e.item
	}
	return items
}

// get returns the item registered under name.
func (r *registry[T]) get(name string) (T, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.items {
		if e.name == name {
			return e.item, true
		}
	}
	var zero T
	return zero, false
}

// add registers item under name, first in the list when prepend is set and
// last otherwise. A taken name is ErrDuplicate.
func (r *registry[T]) add(name string, item T, prepend bool) (func(), error) {
	if name == "" {
		return nil, fmt.Errorf("refhost: %s: %w", r.what, ErrEmptyName)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.ContainsFunc(r.items, func(e *entry[T]) bool { return e.name == name }) {
		return nil, fmt.Errorf("refhost: %s %q: %w", r.what, name, host.ErrDuplicate)
	}
	e := &entry[T]{name: name, item: item}
	if prepend {
		r.items = slices.Insert(r.items, 0, e)
	} else {
		r.items = append(r.items, e)
	}
	return sync.OnceFunc(func() { r.remove(e) }), nil
}

func (r *registry[T]) remove(e *entry[T]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.Index(r.items, e); i >= 0 {
		r.items = slices.Delete(r.items, i, i+1)
	}
}
