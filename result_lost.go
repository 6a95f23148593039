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
	if st, serr := t.c.state(call.Agent); serr == nil {
		t.c.withdrawExit(call.Agent, st, warnExitLost, err)
	}
	return host.ToolErrorPrefix + fmt.Sprintf(textExitNotRecorded, err)
}

// withdrawExit drops the session's pending exit, if one is pending: it
// appends the [EventPlanCancel] marker, whose fold clears the selection
// (best effort: a failure is logged, and the exit is dropped from memory
// all the same). why is the warning logged, cause what made it necessary.
func (c *Controller) withdrawExit(agent host.Agent, st *sessionState, why string, cause error) {
	st.lock()
	exit, gen := st.stateLocked().Exit && !st.closed, st.gen
	st.mu.Unlock()
	if !exit {
		return
	}
	appended, err := st.appendIf(cancelEvent(SelectionInactive), func() bool { return st.gen == gen })
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
