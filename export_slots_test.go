package planmode

import "github.com/dshgo/planmode/host"

// RunSlotKey is the slot key of the controller's current run, under which
// sessions that hold slots keep the run's state; nil when it is stopped.
func RunSlotKey(c *Controller) *host.SlotKey {
	if r := c.run.Load(); r != nil {
		return r.key
	}
	return nil
}
