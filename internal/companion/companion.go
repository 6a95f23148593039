// Package companion holds the plumbing the companion plugins share: the
// check that the plan-mode plugin is enabled, and undoing registrations.
package companion

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/dshgo/planmode"
	"go.uber.org/fx"
)

// RequirePlanMode returns an fx option that fails the application with err
// (which names the plugin and says to enable plan-mode) when the graph has
// no plan-mode controller.
func RequirePlanMode(err error) fx.Option {
	type in struct {
		fx.In
		Controller *planmode.Controller `optional:"true"`
	}
	return fx.Invoke(func(p in) error {
		if p.Controller == nil {
			return err
		}
		return nil
	})
}

// Registration is one thing a plugin adds to the host when it starts.
type Registration struct {
	What string
	Add  func() (undo func(), err error)
}

// Registrations runs regs in order and returns the undo funcs; when one
// fails, the ones already made are undone and the error names it.
func Registrations(plugin string, regs []Registration) ([]func(), error) {
	var undo []func()
	for _, r := range regs {
		u, err := r.Add()
		if err != nil {
			Undo(undo)
			return nil, fmt.Errorf("%s: start: %s: %w", plugin, r.What, err)
		}
		undo = append(undo, u)
	}
	return undo, nil
}

// Undo runs undo funcs in reverse order.
func Undo(undo []func()) {
	for _, u := range slices.Backward(undo) {
		u()
	}
}

// QuoteJSON renders raw input for an error message, shortened.
func QuoteJSON(raw json.RawMessage) string {
	const max = 200
	s := string(raw)
	if len(s) > max {
		s = s[:max] + "…"
	}
	return fmt.Sprintf("%q", s)
}
