package store

import (
	"fmt"
	"slices"
	"sync"

	"github.com/dshgo/planmode/host"
)

// Validators is a named set of [host.Validator]s run in registration
// order: the registry behind a store's AddValidator, for this package's
// stores and others (such as a database store). It is safe for concurrent
// use; the zero value is an empty set.
type Validators struct {
	// Owner names the store in Add's errors, e.g. "store".
	Owner string

	mu    sync.RWMutex
	names []string
	funcs map[string]host.Validator
}

// Add registers v under name and returns the func that removes it (safe to
// call more than once), as [host.Validators.AddValidator] does. A nil v or
// a name already registered (wrapping [host.ErrDuplicate]) is an error.
func (vs *Validators) Add(name string, v host.Validator) (func(), error) {
	if v == nil {
		return nil, fmt.Errorf("%s: validator %q: func is nil", vs.Owner, name)
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if _, ok := vs.funcs[name]; ok {
		return nil, fmt.Errorf("%s: validator %q: %w", vs.Owner, name, host.ErrDuplicate)
	}
	if vs.funcs == nil {
		vs.funcs = map[string]host.Validator{}
	}
	vs.funcs[name] = v
	vs.names = append(vs.names, name)
	var once sync.Once
	return func() {
		once.Do(func() {
			vs.mu.Lock()
			defer vs.mu.Unlock()
			delete(vs.funcs, name)
			vs.names = slices.DeleteFunc(vs.names, func(n string) bool { return n == name })
		})
	}, nil
}

// namedValidator is a validator with its registration name.
type namedValidator struct {
	name string
	fn   host.Validator
}

// snapshot returns the validators in registration order, for checking
// many events without taking the lock for each.
func (vs *Validators) snapshot() []namedValidator {
	vs.mu.RLock()
	defer vs.mu.RUnlock()
	out := make([]namedValidator, len(vs.names))
	for i, n := range vs.names {
		out[i] = namedValidator{n, vs.funcs[n]}
	}
	return out
}

// checkEach runs the validators of a snapshot on e, as Check does.
func checkEach(vals []namedValidator, e host.Event) error {
	for _, v := range vals {
		if err := v.fn(e); err != nil {
			return fmt.Errorf("validator %q: %w", v.name, err)
		}
	}
	return nil
}

// Check runs every validator on e; the first error wins and is wrapped
// with the validator's name.
func (vs *Validators) Check(e host.Event) error {
	vs.mu.RLock()
	defer vs.mu.RUnlock()
	for _, n := range vs.names {
		if err := vs.funcs[n](e); err != nil {
			return fmt.Errorf("validator %q: %w", n, err)
		}
	}
	return nil
}
