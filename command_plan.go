package planmode

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dshgo/planmode/host"
)

// The /plan command's help hint and its two keywords.
const (
	commandHint      = "[off|reopen [N]|message]"
	commandArgOff    = "off"
	commandArgReopen = "reopen"
)

// planAction is what a /plan invocation does.
type planAction uint8

const (
	planOn planAction = iota + 1
	planOnAndSteer
	planOff
	planOffRefused
	planReopen
	planReopenRefused
)

// planArgs classifies a /plan invocation; text is the trimmed argument, or
// the plan's number for reopen. Exactly "off" (case-sensitive) leaves plan
// mode, "reopen [N]" reopens a plan (any other words after "reopen" are a
// bad plan number), nothing enters plan mode, anything else
// enters it and steers a message. It agrees with selectionForArgs.
func planArgs(args string, attachments bool) (action planAction, text string) {
	text = strings.TrimSpace(args)
	n, reopen := reopenArg(text)
	switch {
	case text == commandArgOff && attachments:
		return planOffRefused, text
	case text == commandArgOff:
		return planOff, text
	case reopen && attachments:
		return planReopenRefused, n
	case reopen:
		return planReopen, n
	case text == "" && !attachments:
		return planOn, text
	}
	return planOnAndSteer, text
}

// reopenArg reports whether text is "reopen" with or without words after
// it, and those words: whatever follows "reopen" is its argument (one
// plan number, or an error), never a message.
func reopenArg(text string) (string, bool) {
	f := strings.Fields(text)
	if len(f) == 0 || f[0] != commandArgReopen {
		return "", false
	}
	return strings.Join(f[1:], " "), true
}

// command returns the /plan command.
func (c *Controller) command() host.Command {
	return host.Command{
		Name:          CommandName,
		Description:   commandDescription,
		Hint:          commandHint,
		AcceptsImages: true,
		Run:           c.runPlan,
	}
}

// runPlan handles "/plan [off|reopen [N]|message]": it selects the mode,
// then steers the message (attachments first), and replies with the outcome.
func (c *Controller) runPlan(ctx context.Context, inv host.Invocation) (string, error) {
	action, text := planArgs(inv.Args, len(inv.Attachments) > 0)
	switch action {
	case planOffRefused:
		return "", errOffWithImages
	case planReopenRefused:
		return "", errReopenWithImages
	case planReopen:
		return c.reopen(ctx, inv.Agent, text)
	}
	active := action != planOff
	outcome, err := c.set(inv.Agent, active, true)
	if err != nil {
		return "", err
	}
	reply := c.planReply(inv.Agent, active, outcome)
	if action != planOnAndSteer {
		return reply, nil
	}
	content := slices.Clone(inv.Attachments)
	if text != "" {
		content = append(content, host.TextBlock(text))
	}
	if err := inv.Agent.Steer(host.Message{Content: content}); err != nil {
		return "", wrapped("steer-failed", "", fmt.Sprintf("%s (%s): %v", textSteerFailed, reply, err), err)
	}
	return reply, nil
}

// planReply is the reply to selecting active; a no-op on a pending
// selection reads as queued.
func (c *Controller) planReply(agent host.Agent, active bool, o Outcome) string {
	if o == Noop && c.Get(agent).Pending != SelectionNone {
		o = Queued
	}
	replies := map[Outcome][2]string{ // [inactive, active]
		Noop:      {replyAlreadyInactive, replyAlreadyActive},
		Committed: {replyLeft, replyEntered},
		Queued:    {replyLeaving, replyEntering},
		Cancelled: {replyEntryCancelled, replyExitCancelled},
	}
	if active {
		return replies[o][1]
	}
	return replies[o][0]
}

// reopen handles "/plan reopen [N]" (N defaults to the last approved plan):
// it selects plan mode, logs [EventPlanReopen], runs the extensions' Reopen
// and gives the model the draft, appended when no turn is open, else steered.
func (c *Controller) reopen(ctx context.Context, agent host.Agent, arg string) (string, error) {
	st, err := c.state(agent)
	if err != nil {
		return "", fmt.Errorf("%s: reopen: %w", PluginName, err)
	}
	plans := Plans(agent.Session().Events())
	n := lastApproved(plans)
	if arg != "" {
		v, err := strconv.Atoi(arg)
		if err != nil || v < 1 || v > len(plans) {
			return "", noSuchPlan(arg, len(plans))
		}
		n = v
	} else if n == 0 {
		return "", errNoApprovedPlan
	}
	p := plans[n-1]
	if strings.TrimSpace(p.Plan) == "" {
		return "", planNotLogged(n, len(plans))
	}
	outcome, err := c.set(agent, true, true)
	if err != nil {
		return "", err
	}
	data := mustJSON(ReopenPayload{Number: n, Title: p.Title, Digest: host.DigestDetail(p.Plan), Plan: p.Plan})
	if _, err := host.Append(ctx, st.sess, host.Event{Type: EventPlanReopen, Data: data}); err != nil {
		return "", reopenFailed(err)
	}
	delivered := false
	for _, x := range c.exits {
		if x.Reopen != nil {
			ok, err := x.Reopen(ctx, agent, p.Plan)
			if err != nil {
				return "", reopenFailed(fmt.Errorf("%s: %w", x.Name, err))
			}
			delivered = delivered || ok
		}
	}
	text := fmt.Sprintf(noticeReopened, n) + p.Plan
	if delivered {
		text = fmt.Sprintf(noticeReopenedFile, n)
	}
	msg := pluginMessage(text, reopenForm)
	appended, err := st.appendIf(ctx, messageEvent(msg), func() bool { return !st.v.turnOpen })
	switch {
	case err != nil:
		return "", reopenFailed(err)
	case !appended:
		if err := agent.Steer(msg); err != nil {
			return "", reopenFailed(err)
		}
	}
	if err := host.Sync(st.sess); err != nil {
		return "", fmt.Errorf("%s: reopen: %w", PluginName, err)
	}
	reply := replyReopened
	if outcome == Queued || !appended {
		reply = replyReopening
	}
	return fmt.Sprintf(reply, n), nil
}
