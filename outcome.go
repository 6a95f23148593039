package planmode

import (
	"encoding/json"
	"strings"

	"github.com/dshgo/planmode/host"
)

// PlanReply is an outcome of the /plan command, as its reply says it. A
// host logs the reply as the text of "command/done"; a UI reads it back
// with [ParsePlanReply] and switches on the value instead of matching text.
type PlanReply uint8

// The /plan replies.
const (
	// PlanEntered: plan mode is on now (no turn was open).
	PlanEntered PlanReply = iota + 1
	// PlanEntering: plan mode is on from the next step of the running turn.
	PlanEntering
	// PlanLeft: plan mode is off now.
	PlanLeft
	// PlanLeaving: plan mode ends from the next step of the running turn.
	PlanLeaving
	// PlanEntryCancelled: a pending switch into plan mode was cancelled.
	PlanEntryCancelled
	// PlanExitCancelled: a pending switch back to the default mode was
	// cancelled.
	PlanExitCancelled
	// PlanAlreadyOff: plan mode already was off.
	PlanAlreadyOff
	// PlanAlreadyOn: plan mode already was on.
	PlanAlreadyOn
)

// planReplies are the reply texts, indexed by PlanReply.
var planReplies = [...]string{
	PlanEntered:        replyEntered,
	PlanEntering:       replyEntering,
	PlanLeft:           replyLeft,
	PlanLeaving:        replyLeaving,
	PlanEntryCancelled: replyEntryCancelled,
	PlanExitCancelled:  replyExitCancelled,
	PlanAlreadyOff:     replyAlreadyInactive,
	PlanAlreadyOn:      replyAlreadyActive,
}

// String returns the reply text the command gives for r, "" for a value
// that is no reply.
func (r PlanReply) String() string {
	if int(r) < len(planReplies) {
		return planReplies[r]
	}
	return ""
}

// ParsePlanReply returns the outcome a /plan reply text names, and false
// for any other text (an error, another command's reply).
func ParsePlanReply(text string) (PlanReply, bool) {
	for r, s := range planReplies {
		if s != "" && s == text {
			return PlanReply(r), true
		}
	}
	return 0, false
}

// ExitOutcome is how an exit_plan_mode call ended, as its logged result
// shows it. A UI that reads "tool/result" events switches on
// [ExitOutcomeOf] instead of matching texts; a host that runs the tool
// itself can also test the error with errors.Is ([ErrKeepPlanning] and the
// others).
type ExitOutcome uint8

// The outcomes of an exit_plan_mode call.
const (
	// ExitApproved: the user approved the plan; plan mode ends at the next
	// accepted step.
	ExitApproved ExitOutcome = iota + 1
	// ExitAbandoned: the plan was abandoned (an exit extension's verdict);
	// plan mode ends at the next accepted step.
	ExitAbandoned
	// ExitKeepPlanning: the user did not approve; the model revises the
	// plan (with the user's feedback when there is some).
	ExitKeepPlanning
	// ExitDismissed: the user dismissed the review to speak instead.
	ExitDismissed
	// ExitReloaded: the plugin stopped while the plan was under review.
	ExitReloaded
	// ExitReviewFailed: the question channel failed.
	ExitReviewFailed
	// ExitRefused: the call failed before the user saw the plan (a check
	// of the agent, the mode, the input or the plan; no question channel;
	// an earlier approval or an open review), or for a reason of an exit
	// extension's own.
	ExitRefused
)

// String returns "approved", "abandoned", "keep planning", "dismissed",
// "reloaded", "review failed" or "refused".
func (o ExitOutcome) String() string {
	switch o {
	case ExitApproved:
		return "approved"
	case ExitAbandoned:
		return "abandoned"
	case ExitKeepPlanning:
		return "keep planning"
	case ExitDismissed:
		return "dismissed"
	case ExitReloaded:
		return "reloaded"
	case ExitReviewFailed:
		return "review failed"
	case ExitRefused:
		return "refused"
	}
	return ""
}

// ExitOutcomeOf classifies a result of exit_plan_mode: its output and
// whether it is an error result, as "tool/result" logs them.
func ExitOutcomeOf(output string, isError bool) ExitOutcome {
	if !isError {
		var r struct {
			Abandoned bool `json:"abandoned"`
		}
		if json.Unmarshal([]byte(output), &r) == nil && r.Abandoned {
			return ExitAbandoned
		}
		return ExitApproved
	}
	msg := strings.TrimPrefix(output, host.ToolErrorPrefix)
	tooLarge, _, _ := strings.Cut(textFeedbackTooLarge, "%")
	editTooLarge, _, _ := strings.Cut(textEditTooLarge, "%")
	switch {
	case msg == textKeepPlanning, strings.HasPrefix(msg, textKeepPlanningFeedback), strings.HasPrefix(msg, tooLarge),
		msg == textPlanChanging, msg == textEditNotTaken, strings.HasPrefix(msg, editTooLarge):
		return ExitKeepPlanning
	case msg == textReviewDismissed:
		return ExitDismissed
	case msg == textReviewReloaded:
		return ExitReloaded
	case strings.HasPrefix(msg, textReviewFailed+": "):
		return ExitReviewFailed
	}
	return ExitRefused
}
