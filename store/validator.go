package store

import (
	"fmt"
	"slices"
	"sync"

	"github.com/dshgo/planmode/host"
)

// Validators is a named set of [host.Validator]s run in registration
// order: the registry behind a store's AddValidator and AddValidatorFor,
// for this package's stores and others (such as a database store). It is
// safe for concurrent use; the zero value is an empty set.
type Validators struct {
	// Owner names the store in Add's errors, e.g. "store".
	Owner string

	mu   sync.RWMutex
	list []namedValidator // in registration order
}

// namedValidator is a validator with its registration name and, when it
// checks only some event types, those.
type namedValidator struct {
	name  string
	types []string // nil: every event
	fn    host.Validator
}

// checks reports whether v runs on events of type t.
func (v *namedValidator) checks(t string) bool {
	return v.types == nil || slices.Contains(v.types, t)
}

// Add registers v under name and returns the func that removes it (safe to
// call more than once), as [host.Validators.AddValidator] does. A nil v or
// a name already registered (wrapping [host.ErrDuplicate]) is an error.
func (vs *Validators) Add(name string, v host.Validator) (func(), error) {
	return vs.add(namedValidator{name: name, fn: v})
}

// AddFor registers v under name for the events of the given types only, as
// [host.TypedValidators.AddValidatorFor] does. No types, or an empty one,
// is an error, as for Add.
func (vs *Validators) AddFor(name string, types []string, v host.Validator) (func(), error) {
	if len(types) == 0 || slices.Contains(types, "") {
		return nil, fmt.Errorf("%s: validator %q: types %q: want at least one, none empty", vs.Owner, name, types)
	}
	return vs.add(namedValidator{name: name, types: slices.Clone(types), fn: v})
}

func (vs *Validators) add(nv namedValidator) (func(), error) {
	if nv.fn == nil {
		return nil, fmt.Errorf("%s: validator %q: func is nil", vs.Owner, nv.name)
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if slices.ContainsFunc(vs.list, func(v namedValidator) bool { return v.name == nv.name }) {
		return nil, fmt.Errorf("%s: validator %q: %w", vs.Owner, nv.name, host.ErrDuplicate)
	}
	// A new slice, so that snapshots taken before stay as they were.
	vs.list = append(slices.Clip(vs.list), nv)
	var once sync.Once
	return func() {
		once.Do(func() {
			vs.mu.Lock()
			defer vs.mu.Unlock()
			vs.list = slices.DeleteFunc(slices.Clone(vs.list), func(v namedValidator) bool { return v.name == nv.name })
		})
	}, nil
}

// snapshot returns the validators in registration order, for checking
// many events without taking the lock for each.
func (vs *Validators) snapshot() []namedValidator {
	vs.mu.RLock()
	defer vs.mu.RUnlock()
	return vs.list
}

// checkEach runs the validators of a snapshot on e, as Check does.
func checkEach(vals []namedValidator, e host.Event) error {
	for i := range vals {
		v := &vals[i]
		if !v.checks(e.Type) {
			continue
		}
		if err := v.fn(e); err != nil {
			return fmt.Errorf("validator %q: %w", v.name, err)
		}
	}
	return nil
}

// Check runs on e every validator that checks its type; the first error
// wins and is wrapped with the validator's name.
func (vs *Validators) Check(e host.Event) error {
	return checkEach(vs.snapshot(), e)
}
