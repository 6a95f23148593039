package planmode

import (
	"context"
	"slices"

	"github.com/dshgo/planmode/host"
)

// preStep is the plugin's pre-step listener, registered outermost. It runs
// the rest of the chain first; only when the step was accepted and the agent
// was not cancelled does it land the pending selection, so the request the
// host derives next already reflects the new state. A rejected or cancelled
// step leaves the selection pending. An append failure never fails the
// step: the selection stays pending for a later accepted step. A step the
// controller cannot serve (no agent, a session without an ID) passes
// unchanged, and the first such error of a run is logged as a warning.
func (c *Controller) preStep(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
	d := next(ctx, s)
	if !d.Accepted || ctx.Err() != nil {
		return d
	}
	st, err := c.state(s.Agent)
	if err != nil {
		c.warnOnce(warnPreStepFailed, s.Agent, err)
		return d
	}
	if st.state().Pending == SelectionNone {
		return d
	}
	if _, text, _ := c.applyPending(s.Agent, st, false); text != "" {
		d.Messages = slices.Insert(slices.Clip(d.Messages), 0, pluginMessage(text, noticeForm))
	}
	return d
}
