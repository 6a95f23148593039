package planmode

import (
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// A served session that holds slots keeps its state's cell in the word of
// the run's slot, where a read finds it without touching the state. Once
// the run lets the session go, the cell is the state's own again: a late
// write (a Set that decided before the run stopped) changes the state, not
// the word, which another value may hold by then.
func TestCellMovesOutOfTheSlotBeforeTheSlotIsFreed(t *testing.T) {
	sess, err := store.NewMemory().Create("")
	if err != nil {
		t.Fatal(err)
	}
	slots := sess.(host.SlotHolder).Slots()
	r := newRun()
	st, c, err := r.state(sess)
	if err != nil {
		t.Fatal(err)
	}
	if !c.ready() || c.folded() != 0 || c.word().active() {
		t.Fatalf("cell of a new empty session = %#x, want ready, nothing folded, inactive", uint64(c))
	}
	word := r.key.Word(slots)
	if word == nil || st.cell.Load() != word {
		t.Fatal("the state's cell is not the word of the session's slot")
	}
	if _, err := sess.Append(modeEvent(true)); err != nil {
		t.Fatal(err)
	}
	if got, w, inline := r.key.LoadWord(slots); got != st || !inline || !cell(w).word().active() || cell(w).folded() != 1 {
		t.Fatalf("slot after an append = %p, %#x, %v; want the state with one folded, active event", got, w, inline)
	}
	if got := stateOf(cell(word.Load()), sess); got != (State{Active: true}) {
		t.Fatalf("state from the slot's word = %+v, want active", got)
	}

	r.close()
	if st.cell.Load() != &st.own {
		t.Fatal("after the run closed, the state's cell is still the slot's word")
	}
	if got := cell(st.own.Load()); !got.word().active() || got.folded() != 1 {
		t.Fatalf("the state's own cell = %#x, want what the slot's word held", uint64(got))
	}
	if r.key.Load(slots) != nil {
		t.Fatal("the run's slot still holds the state after the run closed")
	}
	// Another owner takes the freed entry; the old state's late write
	// must not reach its word.
	other := host.NewSlotKey[int]()
	other.Store(slots, new(int))
	ow := other.Word(slots)
	if ow != word {
		t.Fatal("the freed inline entry was not reused; the test needs it reused")
	}
	ow.Store(42)
	st.mu.Lock()
	st.setPending(SelectionInactive, true)
	st.mu.Unlock()
	if got := ow.Load(); got != 42 {
		t.Fatalf("the other owner's word = %d after the old state's write, want 42", got)
	}
	if got := st.load(); got.rawPending() != SelectionInactive || !got.pendingExit() {
		t.Fatalf("the old state's word = %#x, want its pending exit", uint32(got))
	}
}
