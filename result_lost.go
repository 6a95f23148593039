package planmode

import (
	"context"
	"fmt"

	"github.com/dshgo/planmode/host"
)

// ResultLost implements [host.ResultLossHandler]: an approval whose result
// could not be written does not count, so the pending exit is withdrawn
// and plan mode stays on. It returns the is-error result to write instead.
func (t *exitTool) ResultLost(ctx context.Context, call host.CallContext, err error) string {
	if st, serr := t.c.state(call.Agent); serr == nil {
		t.c.withdrawExit(ctx, call.Agent, st, warnExitLost, err)
	}
	return host.ToolErrorPrefix + fmt.Sprintf(textExitNotRecorded, err)
}

// withdrawExit drops the session's pending exit, with an [EventPlanCancel]
// marker if the log takes one, and logs why (with cause, if any).
func (c *Controller) withdrawExit(ctx context.Context, agent host.Agent, st *sessionState, why string, cause error) {
	st.lock()
	exit, gen := st.stateLocked().Exit && !st.closed, st.gen
	st.mu.Unlock()
	if !exit {
		return
	}
	appended, err := st.appendIf(ctx, cancelEvent(SelectionInactive), func() bool { return st.gen == gen })
	if err != nil {
		c.p.Logger.Warn(warnCancelFailed, "agent", agent.ID(), "session", st.sess.ID(), "error", err)
	}
	if !appended {
		st.lock()
		exit = st.gen == gen
		if exit {
			st.setPendingLocked(SelectionNone, false)
		}
		st.mu.Unlock()
		if !exit {
			return // replaced by another selection meanwhile
		}
	}
	args := []any{"agent", agent.ID(), "session", st.sess.ID()}
	if cause != nil {
		args = append(args, "error", cause)
	}
	c.p.Logger.Warn(why, args...)
}

var _ host.ResultLossHandler = (*exitTool)(nil)
