package planmode

import (
	"context"
	"slices"

	"github.com/dshgo/planmode/host"
)

// preStep is the plugin's pre-step listener, registered outermost: after
// the rest of the chain accepts the step, it lands the pending selection
// before the host derives the request. It never fails the step: a failed
// append leaves the selection pending for a later step.
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
	if _, text, _ := c.applyPending(ctx, s.Agent, st, false); text != "" {
		d.Messages = slices.Insert(slices.Clip(d.Messages), 0, pluginMessage(text, noticeForm))
	}
	return d
}
