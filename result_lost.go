package planmode

import (
	"fmt"

	"github.com/dshgo/planmode/host"
)

// ResultLost implements [host.ResultLossHandler]: the result of an approved
// (or abandoned) call could not be written, so the user's answer is not in
// the log and does not count. The pending exit is withdrawn, with an
// [EventPlanCancel] marker when the log takes one (should the record have
// reached the log after all, the marker withdraws it there too), and plan
// mode stays on. It returns the is-error result the host writes instead,
// which tells the model, and the user, why.
func (t *exitTool) ResultLost(call host.CallContext, err error) string {
	if call.Agent != nil && call.Agent.Session() != nil {
		if r := t.c.run.Load(); r != nil {
			if st, _, serr := r.state(call.Agent.Session()); serr == nil {
				t.c.withdrawExit(call.Agent, st, warnExitLost, err)
			}
		}
	}
	return host.ToolErrorPrefix + fmt.Sprintf(textExitNotRecorded, err)
}

// withdrawExit drops the session's pending exit, if one is pending: it
// appends the [EventPlanCancel] marker (best effort: a failure is logged,
// the exit is dropped from memory all the same) and clears the selection.
// why is the warning logged, cause what made it necessary.
func (c *Controller) withdrawExit(agent host.Agent, st *sessionState, why string, cause error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	c.withdrawExitLocked(agent, st, why, cause)
}

// withdrawExitLocked is withdrawExit for a caller that holds st.mu.
func (c *Controller) withdrawExitLocked(agent host.Agent, st *sessionState, why string, cause error) {
	w := st.load()
	if w.pending() != SelectionInactive || !w.pendingExit() || st.closed.Load() {
		return
	}
	if _, _, err := st.sess.AppendIf(cancelEvent(SelectionInactive), st.open); err != nil {
		c.logger.Warn(warnCancelFailed, "agent", agent.ID(), "session", st.sess.ID(), "error", err)
	}
	st.setPending(SelectionNone, false)
	args := []any{"agent", agent.ID(), "session", st.sess.ID()}
	if cause != nil {
		args = append(args, "error", cause)
	}
	c.logger.Warn(why, args...)
}

var _ host.ResultLossHandler = (*exitTool)(nil)
