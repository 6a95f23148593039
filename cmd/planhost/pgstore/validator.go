package pgstore

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

func (vs *validatorSet) add(name string, v host.Validator) (func(), error) {
	if v == nil {
		return nil, fmt.Errorf("pgstore: validator %q: func is nil", name)
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if _, ok := vs.funcs[name]; ok {
		return nil, fmt.Errorf("pgstore: validator %q: %w", name, host.ErrDuplicate)
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

// check runs every validator on e; the first error wins, wrapped with the
// validator's name.
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
