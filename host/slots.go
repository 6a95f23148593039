package host

import (
	"sync"
	"sync/atomic"
)

// SlotHolder is optionally implemented by a [Session] that keeps [Slots]
// for plugins: a plugin that keeps state per session in memory stores it in
// the session's slot under its own key, and a read then finds it there
// instead of looking the session up by ID in a table of its own, which
// costs cache misses once a host serves thousands of sessions.
//
// Slots returns the same non-nil *Slots on every call, and each session has
// its own: a Fork gets fresh, empty slots. Slots live in memory only, for as
// long as the session value: a session opened anew starts with empty slots.
// A host that wraps sessions (for example a new wrapper value per call)
// forwards Slots from the wrapped session. It is optional so that every
// existing Session stays valid; plugins fall back to their own lookup.
type SlotHolder interface {
	Slots() *Slots
}

// SlotKey names one slot in every session's [Slots]. Keys compare by
// identity: each owner (a plugin, or one run of it) makes its own with
// [NewSlotKey] and no one else can read or replace what it stores.
type SlotKey struct {
	_ byte // not zero-sized, so that every key has its own address
}

// NewSlotKey returns a new key, distinct from every other.
func NewSlotKey() *SlotKey { return new(SlotKey) }

// Slots holds a few values for one session, each under a [SlotKey]. The
// zero value is empty and ready to use. It is safe for concurrent use: Load
// takes no lock and does not allocate; Store, Delete and CompareAndDelete
// copy the few entries under a mutex, so it suits keys that are stored once
// and read very often.
//
// A value stored in a session's slots lives as long as the session value:
// the owner deletes it when it stops serving the session.
type Slots struct {
	mu sync.Mutex                // serializes writers
	p  atomic.Pointer[slotTable] // immutable once published; nil when empty
}

// slotsInline is how many entries a slot table holds without a second
// allocation: a read finds one of them in the table's first cache lines.
const slotsInline = 4

// slotTable is an immutable set of slot entries: the first ones inline,
// filled in order (a nil key ends them), the rest in more.
type slotTable struct {
	inline [slotsInline]slotEntry
	more   []slotEntry
}

type slotEntry struct {
	key *SlotKey
	val any
}

// Load returns the value stored under k, or nil when there is none. A nil
// *Slots is empty.
func (s *Slots) Load(k *SlotKey) any {
	if s == nil {
		return nil
	}
	t := s.p.Load()
	if t == nil {
		return nil
	}
	for i := range t.inline {
		switch t.inline[i].key {
		case k:
			return t.inline[i].val
		case nil:
			return nil
		}
	}
	for i := range t.more {
		if t.more[i].key == k {
			return t.more[i].val
		}
	}
	return nil
}

// Store sets the value under k to v, replacing any; a nil v deletes it. A
// nil k is ignored.
func (s *Slots) Store(k *SlotKey, v any) {
	if k == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.publish(k, v)
}

// Delete removes the value under k, if any.
func (s *Slots) Delete(k *SlotKey) { s.Store(k, nil) }

// CompareAndDelete removes the value under k when it is old, and reports
// whether it did. old must be of a comparable type.
func (s *Slots) CompareAndDelete(k *SlotKey, old any) bool {
	if k == nil || old == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Load(k) != old {
		return false
	}
	s.publish(k, nil)
	return true
}

// publish replaces the table with one where k holds v (absent when v is
// nil); callers hold mu.
func (s *Slots) publish(k *SlotKey, v any) {
	old := s.p.Load()
	var entries []slotEntry
	if old != nil {
		entries = old.entries(make([]slotEntry, 0, slotsInline+len(old.more)+1))
	}
	i := 0
	for i < len(entries) && entries[i].key != k {
		i++
	}
	switch {
	case v != nil && i < len(entries):
		entries[i].val = v
	case v != nil:
		entries = append(entries, slotEntry{k, v})
	case i < len(entries):
		entries = append(entries[:i], entries[i+1:]...)
	default:
		return // deleting what is not there
	}
	if len(entries) == 0 {
		s.p.Store(nil)
		return
	}
	t := new(slotTable)
	n := copy(t.inline[:], entries)
	if n < len(entries) {
		t.more = append([]slotEntry(nil), entries[n:]...)
	}
	s.p.Store(t)
}

// entries appends t's entries to dst.
func (t *slotTable) entries(dst []slotEntry) []slotEntry {
	for _, e := range t.inline {
		if e.key == nil {
			break
		}
		dst = append(dst, e)
	}
	return append(dst, t.more...)
}
