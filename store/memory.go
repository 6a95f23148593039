package store

import (
	"fmt"
	"sync"
	"time"

	"github.com/dshgo/planmode/host"
)

// Memory is an in-memory [host.Store]. Its sessions live as long as the
// store; nothing is written anywhere. Events are kept in the same canonical
// form as in a [Dir], so a test against Memory sees what a durable host
// would. The zero value is not usable; call [NewMemory].
type Memory struct {
	validators *Validators
	now        func() time.Time

	mu       sync.Mutex
	sessions map[string]*session
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{validators: &Validators{Owner: "store"}, sessions: map[string]*session{}, now: time.Now}
}

// AddValidator implements [host.Validators].
func (m *Memory) AddValidator(name string, v host.Validator) (func(), error) {
	return m.validators.Add(name, v)
}

// Create implements [host.Store].
func (m *Memory) Create(id string) (host.Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.createLocked(id, host.Log{})
}

func (m *Memory) createLocked(id string, prefix host.Log) (*session, error) {
	if id == "" {
		id = NewID()
	}
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	if _, ok := m.sessions[id]; ok {
		return nil, fmt.Errorf("store: session %q: %w", id, host.ErrSessionExists)
	}
	s := newSession(id, m.validators, m.now, nil, prefix)
	s.fork = func(end int) (host.Session, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.createLocked("", s.Events().Prefix(end))
	}
	m.sessions[id] = s
	return s, nil
}

// Open implements [host.Store]. It returns the session object Create made
// and runs the validators over its events again.
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
	if err := checkAll(m.validators, s.Events()); err != nil {
		return nil, fmt.Errorf("store: session %q: open: %w", id, err)
	}
	return s, nil
}

var _ host.Store = (*Memory)(nil)
