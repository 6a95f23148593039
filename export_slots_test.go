package planmode

import "github.com/dshgo/planmode/host"

// RunSlot is the slot of the controller's current run, under which
// sessions that hold slots keep the run's state.
type RunSlot struct{ key *host.SlotKey[sessionState] }

// RunSlotOf returns the slot of the controller's current run; the zero
// RunSlot when it is stopped.
func RunSlotOf(c *Controller) RunSlot {
	if r := c.run.Load(); r != nil {
		return RunSlot{r.key}
	}
	return RunSlot{}
}

// Holds reports whether s holds a state under the slot.
func (k RunSlot) Holds(s *host.Slots) bool { return k.key != nil && k.key.Load(s) != nil }
