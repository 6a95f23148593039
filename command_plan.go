package planmode

import (
	"context"
	"fmt"
	"strings"

	"github.com/dshgo/planmode/host"
)

// planAction is what a /plan invocation does.
type planAction uint8

const (
	// planOn selects plan mode and sends nothing.
	planOn planAction = iota + 1
	// planOnAndSteer selects plan mode, then steers the text and images.
	planOnAndSteer
	// planOff selects the default mode.
	planOff
	// planOffRefused is "off" with attachments: refused before any change.
	planOffRefused
)

// planArgs classifies a /plan invocation by its raw argument text and
// whether images were attached. The text is trimmed; exactly "off"
// (case-sensitive) leaves plan mode and is refused with attachments; empty
// text with no attachments enters plan mode; anything else enters plan mode
// and steers a message. text is the trimmed argument. The selection agrees
// with selectionForArgs, which reads the same arguments back from the log.
func planArgs(args string, attachments bool) (action planAction, text string) {
	text = strings.TrimSpace(args)
	switch {
	case text == CommandArgOff && attachments:
		return planOffRefused, text
	case text == CommandArgOff:
		return planOff, text
	case text == "" && !attachments:
		return planOn, text
	default:
		return planOnAndSteer, text
	}
}

// command returns the /plan command.
func (c *Controller) command() host.Command {
	return host.Command{
		Name:          CommandName,
		Description:   CommandDescription,
		Hint:          CommandHint,
		AcceptsImages: true,
		Run:           c.runPlan,
	}
}

// runPlan handles "/plan [off|message]". "off" selects the default mode
// (which also cancels an entry that has not reached a request) and never
// steers; with attachments it is refused before anything changes. Anything
// else selects plan mode first and then, when there is text or there are
// attachments, steers one user message: the attachments, then the trimmed
// text. The reply words the outcome, which the command supplies to the host
// as a [PlanReply] ([host.SetOutcome]); a failed Set is the
// command's error, and the command's own failures are [ErrOffWithImages]
// and [ErrSteerFailed].
func (c *Controller) runPlan(ctx context.Context, inv host.Invocation) (string, error) {
	action, text := planArgs(inv.Args, len(inv.Attachments) > 0)
	if action == planOffRefused {
		return "", ErrOffWithImages
	}
	active := action != planOff
	outcome, err := c.set(inv.Agent, active, true)
	if err != nil {
		return "", err
	}
	r := c.planReply(inv.Agent, active, outcome)
	host.SetOutcome(ctx, string(r))
	reply := planReplies[r]
	if action != planOnAndSteer {
		return reply, nil
	}
	content := make([]host.Block, 0, len(inv.Attachments)+1)
	content = append(content, inv.Attachments...)
	if text != "" {
		content = append(content, host.TextBlock(text))
	}
	if err := inv.Agent.Steer(host.Message{Content: content}); err != nil {
		return "", fmt.Errorf("%w (%s): %w", ErrSteerFailed, reply, err)
	}
	return reply, nil
}

// planReply is the outcome of selecting active. A no-op while the same
// selection is still pending reports it as pending, which is what it is.
func (c *Controller) planReply(agent host.Agent, active bool, o Outcome) PlanReply {
	if o == Noop && c.Get(agent).Pending != SelectionNone {
		o = Queued
	}
	var r PlanReply
	switch {
	case o == Committed && active:
		r = PlanEntered
	case o == Committed:
		r = PlanLeft
	case o == Queued && active:
		r = PlanEntering
	case o == Queued:
		r = PlanLeaving
	case o == Cancelled && active:
		r = PlanExitCancelled
	case o == Cancelled:
		r = PlanEntryCancelled
	case active:
		r = PlanAlreadyOn
	default:
		r = PlanAlreadyOff
	}
	return r
}
