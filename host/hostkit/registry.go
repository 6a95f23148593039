package hostkit

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/dshgo/planmode/host"
)

var (
	// ErrBadRegistration means a registration is incomplete or malformed.
	ErrBadRegistration = errors.New("bad registration")
	// ErrEmptyName means a registration has no name; it is an
	// [ErrBadRegistration].
	ErrEmptyName = fmt.Errorf("name is empty: %w", ErrBadRegistration)
)

// Registry is one of a host's registries (sections, tools, commands,
// pre-step listeners, ...): a list of named items under a mutex. Names are
// unique and not empty, and an unregister func removes its own item only,
// never a later one of the same name, however often it is called.
type Registry[T any] struct {
	// What names the registry in errors, for example "refhost: section".
	What string

	mu    sync.Mutex
	items []*entry[T]
}

// entry is one registered item; its address identifies the registration.
type entry[T any] struct {
	name string
	item T
}

// All returns the items in list order.
func (r *Registry[T]) All() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	items := make([]T, len(r.items))
	for i, e := range r.items {
		items[i] = e.item
	}
	return items
}

// Get returns the item registered under name.
func (r *Registry[T]) Get(name string) (T, bool) {
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

// Add registers item under name, first in the list when prepend is set and
// last otherwise. An empty name is [ErrEmptyName], a taken one
// [host.ErrDuplicate].
func (r *Registry[T]) Add(name string, item T, prepend bool) (unregister func(), err error) {
	if name == "" {
		return nil, fmt.Errorf("%s: %w", r.What, ErrEmptyName)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.ContainsFunc(r.items, func(e *entry[T]) bool { return e.name == name }) {
		return nil, fmt.Errorf("%s %q: %w", r.What, name, host.ErrDuplicate)
	}
	e := &entry[T]{name: name, item: item}
	if prepend {
		r.items = slices.Insert(r.items, 0, e)
	} else {
		r.items = append(r.items, e)
	}
	return sync.OnceFunc(func() { r.remove(e) }), nil
}

func (r *Registry[T]) remove(e *entry[T]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.Index(r.items, e); i >= 0 {
		r.items = slices.Delete(r.items, i, i+1)
	}
}
