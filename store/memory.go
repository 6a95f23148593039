// Package store holds session stores: an in-memory store for tests and
// embedded use, and a durable JSONL file store.
package store

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/dshgo/planmode/host"
)

// Memory is an in-memory [host.Store]. Its sessions live as long as the
// process. The zero value is not usable; call [NewMemory].
type Memory struct {
	validators *validatorSet
	mu         sync.Mutex
	sessions   map[string]*session
	now        func() time.Time
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{validators: newValidatorSet(), sessions: map[string]*session{}, now: time.Now}
}

// AddValidator implements [host.Validators].
func (m *Memory) AddValidator(name string, v host.Validator) (func(), error) {
	return m.validators.add(name, v)
}

// Create implements [host.Store].
func (m *Memory) Create(id string) (host.Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.createLocked(id, nil)
}

func (m *Memory) createLocked(id string, prefix []host.Event) (*session, error) {
	if id == "" {
		id = NewID()
	}
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	if _, ok := m.sessions[id]; ok {
		return nil, fmt.Errorf("store: session %q: %w", id, host.ErrSessionExists)
	}
	s := newSession(id, m.validators, m.now, nil)
	s.events = slices.Clone(prefix)
	s.fork = func(end int) (host.Session, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.createLocked("", s.Events()[:end])
	}
	m.sessions[id] = s
	return s, nil
}

// Open implements [host.Store]: it validates every event again.
func (m *Memory) Open(id string) (host.Session, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	m.mu.Lock()
	s, ok := m.sessions[id]
	m.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("store: session %q: %w", id, host.ErrSessionNotFound)
	}
	for _, e := range s.Events() {
		if err := m.validators.check(e); err != nil {
			return nil, fmt.Errorf("store: session %q: %w", id, err)
		}
	}
	return s, nil
}

// NewID returns a fresh random session ID (32 hex digits).
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// validatorSet is a named set of validators run in registration order.
type validatorSet struct {
	mu    sync.RWMutex
	names []string
	funcs map[string]host.Validator
}

func newValidatorSet() *validatorSet { return &validatorSet{funcs: map[string]host.Validator{}} }

func (vs *validatorSet) add(name string, v host.Validator) (func(), error) {
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

func (vs *validatorSet) check(e host.Event) error {
	vs.mu.RLock()
	defer vs.mu.RUnlock()
	for _, n := range vs.names {
		if err := vs.funcs[n](e); err != nil {
			return err
		}
	}
	return nil
}
