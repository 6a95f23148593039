package todo_test

import (
	"testing"
	"time"

	"github.com/dshgo/planmode/todo"
)

// FuzzDecodeWrite feeds arbitrary input to the write check and applies what
// it accepts to a stored list: no panic, and every accepted write keeps the
// list's rules.
func FuzzDecodeWrite(f *testing.F) {
	f.Add([]byte(list(item("1", "in_progress"), item("2", "pending"))))
	f.Add([]byte(list(item("1", "completed"))))
	f.Add([]byte(`{"todos":[]}`))
	f.Add([]byte(`{"todos":[{"id":"1","content":"c","status":"pending","priority":"low","created_at":"x"}]}`))
	f.Add([]byte(`{"todos":[{"id":"1","content":"c\u0000","status":"pending","priority":"low"}]}`))
	f.Add([]byte(`{"todos":null}`))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	stored := []todo.Item{
		{ID: "1", Content: "a", Status: todo.StatusPending, Priority: todo.PriorityLow, CreatedAt: now, UpdatedAt: now},
		{ID: "9", Content: "b", Status: todo.StatusInProgress, Priority: todo.PriorityLow, CreatedAt: now, UpdatedAt: now},
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		written, err := todo.DecodeWrite(input, todo.MaxItems)
		if err != nil {
			return
		}
		next := todo.Apply(stored, written, now.Add(time.Hour))
		ids := map[string]bool{}
		inProgress := 0
		allCompleted := true
		for _, w := range written {
			if w.Status != todo.StatusCompleted {
				allCompleted = false
			}
		}
		for _, it := range next {
			if ids[it.ID] {
				t.Fatalf("id %q twice in %v", it.ID, next)
			}
			ids[it.ID] = true
			if it.Status == todo.StatusInProgress {
				inProgress++
			}
			if it.CreatedAt.IsZero() || it.UpdatedAt.Before(it.CreatedAt) {
				t.Fatalf("item %q has timestamps %v, %v", it.ID, it.CreatedAt, it.UpdatedAt)
			}
		}
		if inProgress > 1 {
			t.Fatalf("%d items in progress", inProgress)
		}
		for _, s := range stored {
			if !ids[s.ID] && !allCompleted {
				t.Fatalf("stored item %q was lost by a write that was not all completed", s.ID)
			}
		}
		if allCompleted && len(next) != len(written) {
			t.Fatalf("a clean slate kept %d items beyond the %d written", len(next)-len(written), len(written))
		}
	})
}
