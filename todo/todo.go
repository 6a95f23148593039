// Package todo is the "todo" companion plugin: the agent's todo list, kept
// through the tools todo_read and todo_write.
//
// The list belongs to the agent, not to a session: it outlives sessions,
// wake-ups and restarts. It lives in the host's agent-scoped document store
// ([host.Documents]) as the document [DocumentName], and every write is a
// compare-and-swap retried on conflict, so two sessions of one agent writing
// at the same time lose nothing.
//
// A write replaces the list ([Apply]): items the agent stored before and
// left out of the write are kept, marked completed, unless every written
// item is completed, which starts from a clean slate and drops them. At
// most one item is in progress and the list holds at most [MaxItems] items.
// The plugin owns the timestamps: created_at is kept for a known id and
// updated_at changes only when the item changed.
//
// The plugin does not need plan mode: a deployment may enable it alone.
package todo

import (
	"encoding/json"
	"time"
)

// Names the plugin registers with the host.
const (
	// PluginName is the plugin's key under plugins: in the deployment file.
	PluginName = "todo"
	// ReadToolName is the tool that returns the agent's list.
	ReadToolName = "todo_read"
	// WriteToolName is the tool that replaces the agent's list.
	WriteToolName = "todo_write"
	// DocumentName names the list in the host's document store.
	DocumentName = "todo"
)

// Limits of a list.
const (
	// MaxItems is the most items a list holds.
	MaxItems = 200
	// MaxContentSize is the longest item content, in bytes (4 KiB).
	MaxContentSize = 4 << 10
	// MaxIDSize is the longest item id, in bytes.
	MaxIDSize = 128
)

// Status is an item's state.
type Status string

// The statuses of an item.
const (
	StatusPending    Status = "pending"
	StatusInProgress Status = "in_progress"
	StatusCompleted  Status = "completed"
)

// Priority is an item's priority.
type Priority string

// The priorities of an item.
const (
	PriorityHigh   Priority = "high"
	PriorityMedium Priority = "medium"
	PriorityLow    Priority = "low"
)

// Item is one entry of the list.
type Item struct {
	// ID identifies the item; unique within the list.
	ID string `json:"id"`
	// Content says what to do.
	Content string `json:"content"`
	// Status is pending, in_progress or completed.
	Status Status `json:"status"`
	// Priority is high, medium or low.
	Priority Priority `json:"priority"`
	// CreatedAt is when the item was first written (set by the plugin).
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is when the item last changed (set by the plugin).
	UpdatedAt time.Time `json:"updated_at"`
}

// List is the stored document and the result of both tools.
type List struct {
	Todos []Item `json:"todos"`
}

// ParseList reads a stored list or a tool result.
func ParseList(data []byte) (List, error) {
	var l List
	if err := json.Unmarshal(data, &l); err != nil {
		return List{}, err
	}
	if l.Todos == nil {
		l.Todos = []Item{}
	}
	return l, nil
}

// same reports whether a and b hold the same content, status and priority.
func same(a, b Item) bool {
	return a.Content == b.Content && a.Status == b.Status && a.Priority == b.Priority
}

// Apply merges a write into the stored list at time now and returns the new
// list, in the written order followed by the kept items in their stored
// order:
//
//   - A written item with a known id keeps its created_at; its updated_at
//     is now when its content, status or priority changed and is kept
//     otherwise. A new id gets now for both.
//   - A stored item left out of the write is kept, marked completed
//     (updated_at is now when that changed its status) — unless every
//     written item is completed (an empty write included): then the
//     left-out items are dropped, a clean slate.
//
// Apply does not check the write; see [DecodeWrite].
func Apply(stored, written []Item, now time.Time) []Item {
	now = now.UTC().Truncate(time.Second)
	known := make(map[string]Item, len(stored))
	for _, it := range stored {
		known[it.ID] = it
	}
	out := make([]Item, 0, len(written)+len(stored))
	inWrite := make(map[string]bool, len(written))
	allCompleted := true
	for _, w := range written {
		inWrite[w.ID] = true
		if w.Status != StatusCompleted {
			allCompleted = false
		}
		it := w
		if old, ok := known[w.ID]; ok {
			it.CreatedAt, it.UpdatedAt = old.CreatedAt, old.UpdatedAt
			if !same(old, w) {
				it.UpdatedAt = now
			}
		} else {
			it.CreatedAt, it.UpdatedAt = now, now
		}
		out = append(out, it)
	}
	if allCompleted {
		return out
	}
	for _, old := range stored {
		if inWrite[old.ID] {
			continue
		}
		if old.Status != StatusCompleted {
			old.Status = StatusCompleted
			old.UpdatedAt = now
		}
		out = append(out, old)
	}
	return out
}
