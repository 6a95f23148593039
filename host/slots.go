package host

import (
	"sync"
	"sync/atomic"
	"unsafe"
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
// forwards Slots from the wrapped session, and only when it keeps that
// session's ID: a plugin trusts the slots to be the session's. It is
// optional so that every existing Session stays valid; plugins fall back to
// their own lookup. A plugin's read touches the session's ID and its
// slots, so a session keeps the two next to each other.
type SlotHolder interface {
	Slots() *Slots
}

// Slots holds a few pointers for one session, each under a [SlotKey]. The
// zero value is empty and ready to use; embed it in the session (it must
// not be copied after first use). It is safe for concurrent use: a Load
// takes no lock, does not allocate and, for the first few keys, reads
// nothing but the Slots itself, so that a read costs no cache miss beyond
// the session's; writes take a mutex, so it suits values that are stored
// once and read very often.
//
// A value stored in a session's slots lives as long as the session value:
// the owner deletes it when it stops serving the session.
//
// A value stored inline (the first few keys of a Slots) also has a word:
// 64 bits its owner may use for state that it reads far more often than
// it writes, so that such a read ([SlotKey.LoadWord]) costs no cache miss
// beyond the session's, not even on the value.
type Slots struct {
	// seq is even when inline is stable and odd while a writer changes it:
	// a reader that sees the same even seq before and after reading an
	// entry read a key and value that were stored together.
	seq    atomic.Uint64
	inline [slotsInline]slotEntry
	more   atomic.Pointer[[]moreEntry] // immutable; keys past the inline ones
	mu     sync.Mutex                  // serializes writers
}

// slotsInline is how many keys Slots holds without an allocation.
const slotsInline = 2

// slotEntry is one inline key, its value and the value's word; key is nil
// when it is free. The word is its owner's: only key and val are guarded
// by seq.
type slotEntry struct {
	key  atomic.Pointer[slotID]
	val  atomic.Pointer[slotValue]
	word atomic.Uint64
}

// moreEntry is an entry of more, which is never changed once
// published.
type moreEntry struct {
	key *slotID
	val *slotValue
}

// slotID is what identifies a key; slotValue stands for the T a key's
// values point to.
type (
	slotID    struct{ _ byte } // not zero-sized, so that every key has its own address
	slotValue struct{}
)

// SlotKey names one slot, holding a *T, in every session's [Slots]. Keys
// compare by identity: each owner (a plugin, or one run of it) makes its
// own with [NewSlotKey], and no one else can read or replace what it
// stores.
type SlotKey[T any] struct{ id slotID }

// NewSlotKey returns a new key, distinct from every other.
func NewSlotKey[T any]() *SlotKey[T] { return new(SlotKey[T]) }

// Load returns the value stored under k in s, or nil when there is none or
// s is nil.
func (k *SlotKey[T]) Load(s *Slots) *T {
	v, _, _ := k.LoadWord(s)
	return v
}

// LoadWord returns the value stored under k in s and, when the value is
// stored inline, the content of its word (see [SlotKey.Word]) with inline
// true. It reads nothing but the Slots for the first inline key. The word
// is read after the value was stored under k and before it was deleted or
// replaced. It returns nil, 0, false when there is no value or s is nil.
func (k *SlotKey[T]) LoadWord(s *Slots) (v *T, word uint64, inline bool) {
	// The first inline entry, the usual place of a session's only key, is
	// read first, with nothing else, in a body small enough to inline.
	if s != nil {
		q, e := s.seq.Load(), &s.inline[0]
		if q&1 == 0 && e.key.Load() == &k.id {
			val, w := e.val.Load(), e.word.Load()
			if s.seq.Load() == q {
				return (*T)(unsafe.Pointer(val)), w, true
			}
		}
	}
	val, w, inline := s.loadSlow(&k.id)
	return (*T)(unsafe.Pointer(val)), w, inline
}

// loadSlow is LoadWord past the first entry, or while a writer is busy.
func (s *Slots) loadSlow(id *slotID) (*slotValue, uint64, bool) {
	if s == nil {
		return nil, 0, false
	}
	if q := s.seq.Load(); q&1 == 0 {
		for i := range s.inline {
			e := &s.inline[i]
			if e.key.Load() != id {
				continue
			}
			val, w := e.val.Load(), e.word.Load()
			if s.seq.Load() == q {
				return val, w, true
			}
			break // a writer changed the entry meanwhile
		}
		if s.seq.Load() == q {
			// Not inline; a key is never moved between inline and more.
			return s.loadMore(id), 0, false
		}
	}
	s.mu.Lock() // a writer is busy: read what it leaves
	defer s.mu.Unlock()
	return s.loadLocked(id)
}

// Word returns the word of the value stored under k in s, or nil when
// there is none, s is nil or the value is not stored inline (a Slots keeps
// a word for its first few keys only). Storing a value under k, the same
// or another, sets its word to zero; the word then stays at the same
// address until the value is deleted or replaced, and the owner must stop
// writing it before it deletes or replaces the value: the entry may then
// hold another key's value and word.
func (k *SlotKey[T]) Word(s *Slots) *atomic.Uint64 {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.inline {
		if e := &s.inline[i]; e.key.Load() == &k.id {
			return &e.word
		}
	}
	return nil
}

// Store sets the value under k in s to v, replacing any; a nil v deletes
// it.
func (k *SlotKey[T]) Store(s *Slots, v *T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(&k.id, (*slotValue)(unsafe.Pointer(v)))
}

// Delete removes the value under k from s, if any.
func (k *SlotKey[T]) Delete(s *Slots) { k.Store(s, nil) }

// CompareAndDelete removes the value under k from s when it is old, and
// reports whether it did.
func (k *SlotKey[T]) CompareAndDelete(s *Slots, old *T) bool {
	if old == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, _, _ := s.loadLocked(&k.id); v != (*slotValue)(unsafe.Pointer(old)) {
		return false
	}
	s.put(&k.id, nil)
	return true
}

// loadLocked is loadSlow for callers that hold mu.
func (s *Slots) loadLocked(id *slotID) (*slotValue, uint64, bool) {
	for i := range s.inline {
		if e := &s.inline[i]; e.key.Load() == id {
			return e.val.Load(), e.word.Load(), true
		}
	}
	return s.loadMore(id), 0, false
}

func (s *Slots) loadMore(id *slotID) *slotValue {
	if m := s.more.Load(); m != nil {
		for _, e := range *m {
			if e.key == id {
				return e.val
			}
		}
	}
	return nil
}

// put sets the value under id to v (deletes it when v is nil); callers hold
// mu. A key stays where it was first stored (inline, or in more when inline
// was full) until it is deleted.
func (s *Slots) put(id *slotID, v *slotValue) {
	free := -1
	for i := range s.inline {
		e := &s.inline[i]
		switch e.key.Load() {
		case id:
			s.seq.Add(1)
			if v == nil {
				e.key.Store(nil)
			}
			e.val.Store(v)
			e.word.Store(0)
			s.seq.Add(1)
			return
		case nil:
			if free < 0 {
				free = i
			}
		}
	}
	var more []moreEntry
	if m := s.more.Load(); m != nil {
		more = *m
	}
	for i, e := range more {
		if e.key == id {
			n := append([]moreEntry(nil), more...)
			if v == nil {
				n = append(n[:i], n[i+1:]...)
			} else {
				n[i].val = v
			}
			s.publishMore(n)
			return
		}
	}
	switch {
	case v == nil: // deleting what is not there
	case free >= 0:
		e := &s.inline[free]
		s.seq.Add(1)
		e.val.Store(v)
		e.word.Store(0)
		e.key.Store(id)
		s.seq.Add(1)
	default:
		s.publishMore(append(append([]moreEntry(nil), more...), moreEntry{id, v}))
	}
}

func (s *Slots) publishMore(m []moreEntry) {
	if len(m) == 0 {
		s.more.Store(nil)
		return
	}
	s.more.Store(&m)
}
