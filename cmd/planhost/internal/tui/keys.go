package tui

import "charm.land/bubbles/v2/key"

// keyMap is the UI's one keymap; the help text of /help comes from the
// catalog in the same order.
type keyMap struct {
	Send, Newline, TogglePlan, Cancel, Interrupt, Exit, Reasoning, PageUp, PageDown key.Binding
	Up, Down, Choose, HistoryPrev, HistoryNext                                      key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Send:       key.NewBinding(key.WithKeys("enter")),
		Newline:    key.NewBinding(key.WithKeys("alt+enter", "ctrl+j", "shift+enter")),
		TogglePlan: key.NewBinding(key.WithKeys("shift+tab")),
		Cancel:     key.NewBinding(key.WithKeys("esc")),
		Interrupt:  key.NewBinding(key.WithKeys("ctrl+c")),
		Exit:       key.NewBinding(key.WithKeys("ctrl+d")),
		Reasoning:  key.NewBinding(key.WithKeys("ctrl+o")),
		PageUp:     key.NewBinding(key.WithKeys("pgup")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown")),
		Up:         key.NewBinding(key.WithKeys("up", "ctrl+p")),
		Down:       key.NewBinding(key.WithKeys("down", "ctrl+n", "tab")),
		Choose:     key.NewBinding(key.WithKeys("enter")),
		// Up and down recall earlier inputs from the first and last line.
		HistoryPrev: key.NewBinding(key.WithKeys("up")),
		HistoryNext: key.NewBinding(key.WithKeys("down")),
	}
}
