package planmode

import (
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// TestSessionTableMatchesMap checks the run's session table against a map
// through serving, releasing and looking up sessions in any order, across
// growth and removed slots.
func TestSessionTableMatchesMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tab *sessionTable
		model := map[string]*sessionState{}
		idGen := rapid.Custom(func(t *rapid.T) string { return "s" + strconv.Itoa(rapid.IntRange(0, 80).Draw(t, "n")) })
		for range rapid.IntRange(0, 300).Draw(t, "ops") {
			id := idGen.Draw(t, "id")
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0: // serve
				if model[id] == nil {
					st := &sessionState{id: id, hash: hashID(id)}
					tab = tab.insert(st)
					model[id] = st
				}
			case 1: // release
				if st := model[id]; st != nil {
					tab.remove(st)
					delete(model, id)
				}
			}
			var got *sessionState
			if tab != nil {
				got = tab.find(id, hashID(id))
			}
			if got != model[id] {
				t.Fatalf("find(%q) = %p, want %p", id, got, model[id])
			}
			n := 0
			tab.each(func(st *sessionState) {
				n++
				if model[st.id] != st {
					t.Fatalf("the table holds %q, which was released", st.id)
				}
			})
			if n != len(model) || (tab != nil && tab.live != n) {
				t.Fatalf("the table holds %d sessions (live %d), want %d", n, tab.live, len(model))
			}
		}
	})
}
