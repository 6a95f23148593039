package store

import (
	"fmt"
	"slices"
	"sync"

	"github.com/dshgo/planmode/host"
)

// validatorSet is a named set of validators run in registration order.
type validatorSet struct {
	mu    sync.RWMutex
	names []string
	funcs map[string]host.Validator
}

func newValidatorSet() *validatorSet { return &validatorSet{funcs: map[string]host.Validator{}} }

func (vs *validatorSet) add(name string, v host.Validator) (func(), error) {
	if v == nil {
		return nil, fmt.Errorf("store: validator %q: func is nil", name)
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if _, ok := vs.funcs[name]; ok {
		return nil, fmt.Errorf("store: validator %q: %w", name, host.ErrDuplicate)
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
func (vs *validatorSet) snapshot() []namedValidator {
	vs.mu.RLock()
	defer vs.mu.RUnlock()
	out := make([]namedValidator, len(vs.names))
	for i, n := range vs.names {
		out[i] = namedValidator{n, vs.funcs[n]}
	}
	return out
}

// checkEach runs the validators of a snapshot on e, as check does.
func checkEach(vals []namedValidator, e host.Event) error {
	for _, v := range vals {
		if err := v.fn(e); err != nil {
			return fmt.Errorf("validator %q: %w", v.name, err)
		}
	}
	return nil
}

// check runs every validator on e; the first error wins and is wrapped with
// the validator's name.
func (vs *validatorSet) check(e host.Event) error {
	vs.mu.RLock()
	defer vs.mu.RUnlock()
	for _, n := range vs.names {
		if err := vs.funcs[n](e); err != nil {
			return fmt.Errorf("validator %q: %w", n, err)
		}
	}
	return nil
}
