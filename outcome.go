package planmode

// PlanReply is the outcome of a /plan command that succeeded. The command
// supplies it with [host.SetOutcome], so a host logs it in the Outcome of
// the run's "command/done"; a UI switches on it, never on the reply text.
// A run that failed, or one logged before outcomes were, has none ("").
type PlanReply string

// The /plan outcomes.
const (
	// PlanEntered: plan mode is on now (no turn was open).
	PlanEntered PlanReply = "entered"
	// PlanEntering: plan mode is on from the next step of the running turn.
	PlanEntering PlanReply = "entering"
	// PlanLeft: plan mode is off now.
	PlanLeft PlanReply = "left"
	// PlanLeaving: plan mode ends from the next step of the running turn.
	PlanLeaving PlanReply = "leaving"
	// PlanEntryCancelled: a pending switch into plan mode was cancelled.
	PlanEntryCancelled PlanReply = "entry-cancelled"
	// PlanExitCancelled: a pending switch back to the default mode was
	// cancelled.
	PlanExitCancelled PlanReply = "exit-cancelled"
	// PlanAlreadyOff: plan mode already was off.
	PlanAlreadyOff PlanReply = "already-off"
	// PlanAlreadyOn: plan mode already was on.
	PlanAlreadyOn PlanReply = "already-on"
	// PlanReopened: plan mode is on with a plan of the session reopened as
	// the working draft ("/plan reopen").
	PlanReopened PlanReply = "reopened"
	// PlanReopening: as PlanReopened, from the next step of the running
	// turn.
	PlanReopening PlanReply = "reopening"
)

// planReplies are the reply texts of the outcomes.
var planReplies = map[PlanReply]string{
	PlanEntered:        replyEntered,
	PlanEntering:       replyEntering,
	PlanLeft:           replyLeft,
	PlanLeaving:        replyLeaving,
	PlanEntryCancelled: replyEntryCancelled,
	PlanExitCancelled:  replyExitCancelled,
	PlanAlreadyOff:     replyAlreadyInactive,
	PlanAlreadyOn:      replyAlreadyActive,
}

// ExitOutcome is how an exit_plan_mode call ended. The tool supplies it
// with [host.SetOutcome], so a host logs it in the Outcome of the call's
// "tool/result"; a UI switches on it, never on the result text. A result
// logged before outcomes were has none (""): its outcome is unknown. A
// host that runs the tool itself can also test the error with errors.Is
// ([ErrKeepPlanning] and the others).
type ExitOutcome string

// The outcomes of an exit_plan_mode call.
const (
	// ExitApproved: the user approved the plan; plan mode ends at the next
	// accepted step.
	ExitApproved ExitOutcome = "approved"
	// ExitAbandoned: the plan was abandoned (an exit extension's verdict);
	// plan mode ends at the next accepted step.
	ExitAbandoned ExitOutcome = "abandoned"
	// ExitKeepPlanning: the user did not approve, or approved a text that
	// is not the plan as it stands; the model revises the plan (with the
	// user's feedback when there is some).
	ExitKeepPlanning ExitOutcome = "keep-planning"
	// ExitDismissed: the user dismissed the review to speak instead.
	ExitDismissed ExitOutcome = "dismissed"
	// ExitReloaded: the plugin stopped while the plan was under review.
	ExitReloaded ExitOutcome = "reloaded"
	// ExitReviewFailed: the question channel failed.
	ExitReviewFailed ExitOutcome = "review-failed"
	// ExitRefused: the call failed before the user saw the plan (a check
	// of the agent, the mode, the input or the plan; no question channel;
	// an earlier approval or an open review), or for a reason of an exit
	// extension's own.
	ExitRefused ExitOutcome = "refused"
)
