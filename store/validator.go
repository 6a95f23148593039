package store

import (
	"fmt"
	"slices"
	"sync"

	"github.com/dshgo/planmode/host"
)

// Validators is a named set of [host.Validator]s run in registration
// order: the registry behind a store's AddValidator, for this package's
// stores and others (such as a database store). Every validator sees every
// event; one that checks some types ignores the others. It is safe for
// concurrent use; the zero value is an empty set.
type Validators struct {
	// Owner names the store in Add's errors, e.g. "store".
	Owner string

	mu   sync.RWMutex
	list []namedValidator // in registration order; replaced, never changed in place
}

// namedValidator is a validator with its registration name.
type namedValidator struct {
	name string
	fn   host.Validator
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
	if slices.ContainsFunc(vs.list, func(nv namedValidator) bool { return nv.name == name }) {
		return nil, fmt.Errorf("%s: validator %q: %w", vs.Owner, name, host.ErrDuplicate)
	}
	vs.list = append(slices.Clip(vs.list), namedValidator{name: name, fn: v})
	var once sync.Once
	return func() {
		once.Do(func() {
			vs.mu.Lock()
			defer vs.mu.Unlock()
			vs.list = slices.DeleteFunc(slices.Clone(vs.list), func(nv namedValidator) bool { return nv.name == name })
		})
	}, nil
}

// Check runs every validator on e, in registration order; the first error
// wins and is wrapped with the validator's name. The validators run
// without the lock, so one may add or remove validators.
func (vs *Validators) Check(e host.Event) error {
	vs.mu.RLock()
	list := vs.list
	vs.mu.RUnlock()
	for _, v := range list {
		if err := v.fn(e); err != nil {
			return fmt.Errorf("validator %q: %w", v.name, err)
		}
	}
	return nil
}
