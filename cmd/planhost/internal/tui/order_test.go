package tui_test

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/dshgo/planmode/cmd/planhost/internal/tui"
)

// TestSubmissionsReachTheBackendInTheOrderTyped: a message typed right
// after "/plan Add Goodbye" must not overtake the command (it would start
// a turn in the default mode). The UI hands the backend one submission at
// a time: the second is held until the first is delivered, whatever order
// the runtime would run their commands in.
func TestSubmissionsReachTheBackendInTheOrderTyped(t *testing.T) {
	b := &fakeBackend{}
	var m tea.Model = tui.New(tui.Config{Backend: b, Mode: tui.Mode{Composed: true}})
	m, _ = m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	enter := func(text string) tea.Cmd {
		for _, r := range text {
			m, _ = m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
		var cmd tea.Cmd
		m, cmd = m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
		return cmd
	}
	first := enter("/plan Add Goodbye")
	second := enter("ok go")
	// Run what the second Enter returned first, as a busy runtime may.
	if second != nil {
		if msg := second(); msg != nil {
			m, _ = m.Update(msg)
		}
	}
	next := m
	var cmd tea.Cmd
	if first == nil {
		t.Fatal("the first Enter sent nothing")
	}
	next, cmd = next.Update(first())
	for cmd != nil {
		msg := cmd()
		if msg == nil {
			break
		}
		next, cmd = next.Update(msg)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.order) != 2 || b.order[0] != "/plan Add Goodbye" || b.order[1] != "ok go" {
		t.Fatalf("the backend got %q, want the command, then the message", b.order)
	}
}
