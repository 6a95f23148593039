package planmode

import (
	"hash/maphash"
	"sync/atomic"
)

// sessionTable maps session IDs to the states of the sessions a run
// serves. It is an open-addressing hash table of atomic pointers: a lookup
// takes no lock and touches the slots it probes (usually one) and the state
// it finds, which keeps its own hash and ID; a sync.Map walks several trie
// nodes first, each a cache miss once a host serves thousands of sessions.
//
// Writers (insert, remove, grow) hold the run's mutex. A table never moves
// its entries: growing builds a new table and publishes it, so a reader
// still probing the old one may miss a session served just now (callers
// then take the run's mutex and look again) or find one released just now
// (whose state is closed, as it would be had the reader been a moment
// earlier).
type sessionTable struct {
	slots []atomic.Pointer[sessionState] // len is a power of two
	used  int                            // slots not nil, removed ones included; writers only
	live  int                            // sessions held; writers only
}

// removedSlot marks a slot whose session was removed, so that probes go on
// past it.
var removedSlot = new(sessionState)

// tableSeed seeds the hash of session IDs.
var tableSeed = maphash.MakeSeed()

// minTableSlots is the size of a new table.
const minTableSlots = 16

func hashID(id string) uint64 { return maphash.String(tableSeed, id) }

// find returns the state of session id, whose hash is h.
func (t *sessionTable) find(id string, h uint64) *sessionState {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		st := t.slots[i].Load()
		if st == nil {
			return nil
		}
		if st.hash == h && st != removedSlot && st.id == id {
			return st
		}
	}
}

// insert adds st, whose session the table does not hold, to t, or to a
// larger table that it returns when t is full (nil when it is nil).
func (t *sessionTable) insert(st *sessionState) *sessionTable {
	if t == nil || (t.used+1)*4 > len(t.slots)*3 {
		t = t.grown()
	}
	mask := uint64(len(t.slots) - 1)
	for i := st.hash & mask; ; i = (i + 1) & mask {
		switch old := t.slots[i].Load(); old {
		case nil:
			t.used++
			fallthrough
		case removedSlot:
			t.slots[i].Store(st)
			t.live++
			return t
		}
	}
}

// remove drops st from t when t holds it.
func (t *sessionTable) remove(st *sessionState) {
	if t == nil {
		return
	}
	mask := uint64(len(t.slots) - 1)
	for i := st.hash & mask; ; i = (i + 1) & mask {
		switch t.slots[i].Load() {
		case nil:
			return
		case st:
			t.slots[i].Store(removedSlot)
			t.live--
			return
		}
	}
}

// grown returns a new table holding t's sessions, with room for as many
// again (and no removed slots).
func (t *sessionTable) grown() *sessionTable {
	n := minTableSlots
	live := 0
	if t != nil {
		live = t.live
	}
	for n*3 < (live+1)*2*4 { // at most 3/8 full after growing
		n *= 2
	}
	g := &sessionTable{slots: make([]atomic.Pointer[sessionState], n)}
	t.each(func(st *sessionState) { g.insert(st) })
	return g
}

// each calls f for every session t holds.
func (t *sessionTable) each(f func(*sessionState)) {
	if t == nil {
		return
	}
	for i := range t.slots {
		if st := t.slots[i].Load(); st != nil && st != removedSlot {
			f(st)
		}
	}
}
