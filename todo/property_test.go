package todo_test

import (
	"testing"
	"time"

	"github.com/dshgo/planmode/todo"
	"pgregory.net/rapid"
)

// TestApplyKeepsTheRules checks random sequences of writes against the
// rules: a write that is not all completed loses no stored item; a stored
// item keeps its created_at while it stays on the list; an unchanged item
// keeps its updated_at; a clean slate holds exactly the written items.
func TestApplyKeepsTheRules(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var stored []todo.Item
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for step := range rapid.IntRange(1, 8).Draw(t, "writes") {
			now = now.Add(time.Minute)
			n := rapid.IntRange(0, 6).Draw(t, "items")
			ids := rapid.Permutation([]string{"a", "b", "c", "d", "e", "f"}).Draw(t, "ids")[:n]
			written := make([]todo.Item, n)
			allCompleted := true
			for i, id := range ids {
				st := rapid.SampledFrom([]todo.Status{todo.StatusPending, todo.StatusCompleted}).Draw(t, "status")
				allCompleted = allCompleted && st == todo.StatusCompleted
				written[i] = todo.Item{ID: id, Content: rapid.SampledFrom([]string{"x", "y"}).Draw(t, "content"), Status: st, Priority: todo.PriorityLow}
			}
			next := todo.Apply(stored, written, now)
			byID := map[string]todo.Item{}
			for _, it := range next {
				if _, dup := byID[it.ID]; dup {
					t.Fatalf("write %d: id %s twice", step, it.ID)
				}
				byID[it.ID] = it
			}
			if allCompleted && len(next) != len(written) {
				t.Fatalf("write %d: a clean slate holds %d items, %d written", step, len(next), len(written))
			}
			for _, old := range stored {
				it, ok := byID[old.ID]
				if !ok {
					if !allCompleted {
						t.Fatalf("write %d: item %s was lost", step, old.ID)
					}
					continue
				}
				if !it.CreatedAt.Equal(old.CreatedAt) {
					t.Fatalf("write %d: item %s created_at moved", step, old.ID)
				}
				if it.Content == old.Content && it.Status == old.Status && it.Priority == old.Priority && !it.UpdatedAt.Equal(old.UpdatedAt) {
					t.Fatalf("write %d: unchanged item %s got a new updated_at", step, old.ID)
				}
			}
			stored = next
		}
	})
}
