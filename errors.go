package planmode

import "errors"

// Errors returned by the controller and the payload check. Callers test them
// with errors.Is; the returned errors wrap them with context.
var (
	// ErrNoAgent means a call named no agent (or an agent without a
	// session): plan mode belongs to an agent's session.
	ErrNoAgent = errors.New(textNoAgent)
	// ErrNotRunning means the controller is not started, or was stopped
	// (fx stop, reload).
	ErrNotRunning = errors.New(textNotRunning)
	// ErrAlreadyRunning means Start was called on a running controller.
	ErrAlreadyRunning = errors.New(textStarted)
	// ErrBadPayload means a plan/mode event's active field is missing or is
	// not a boolean, or a plan/cancel event's cancelled field is not "active"
	// or "inactive".
	ErrBadPayload = errors.New(textBadPayload)
	// ErrBadConfig means a Config failed validation ([Config.Validate],
	// [New]) or a configuration node failed to decode (the plugin's decoder).
	ErrBadConfig = errors.New(textBadConfig)
	// ErrMissingDependency means New was given no value for a required
	// host registry.
	ErrMissingDependency = errors.New(textMissingDependency)
	// ErrBadExtension means the exit extensions given to New are
	// inconsistent: one has no name, two share a name or an input property.
	ErrBadExtension = errors.New(textBadExtension)
	// ErrPlanMode means an agent is already in plan mode or entering it, so
	// Enter has nothing to do.
	ErrPlanMode = errors.New(textAlreadyPlanMode)
)

// Outcomes of exit_plan_mode other than approval, and the errors of the
// /plan command. The tool's errors are the tool results the model reads
// (after [host.ToolErrorPrefix]); a host or UI that runs the tool tells
// them apart with errors.Is, and one that reads logged results switches
// on the logged outcome ([ExitOutcome]). Errors with details (the feedback, a size) wrap them.
var (
	// ErrExitNoAgent means the tool was called outside an agent.
	ErrExitNoAgent = errors.New(textExitNoAgent)
	// ErrExitNotPlanMode means the calling session is not in plan mode.
	ErrExitNotPlanMode = errors.New(textExitNotPlanMode)
	// ErrExitBadInput means the input is not {"plan": string} (plus the
	// properties of exit extensions).
	ErrExitBadInput = errors.New(textExitBadInput)
	// ErrExitNoHeading means the plan does not begin with a level-1
	// Markdown heading.
	ErrExitNoHeading = errors.New(textExitNoHeading)
	// ErrExitNoChannel means the host has no user-question channel, or no
	// user is attached to it: the plan was not reviewed.
	ErrExitNoChannel = errors.New(textExitNoChannel)
	// ErrExitTooLarge means the plan is over 256 KiB.
	ErrExitTooLarge = errors.New(textExitTooLargeSentinel)
	// ErrExitDecided means an earlier call of the batch was approved (or
	// abandoned) and its exit is pending: this plan was not shown.
	ErrExitDecided = errors.New(textExitDecided)
	// ErrExitReviewOpen means another call's review of the session is
	// still open: this plan was not shown.
	ErrExitReviewOpen = errors.New(textExitReviewOpen)
	// ErrKeepPlanning means the user did not approve: the model revises the
	// plan. Errors carrying the user's feedback wrap it.
	ErrKeepPlanning = errors.New(textKeepPlanning)
	// ErrReviewDismissed means the user dismissed the review to speak
	// instead.
	ErrReviewDismissed = errors.New(textReviewDismissed)
	// ErrReviewReloaded means the controller stopped (fx stop, reload)
	// while the review was open.
	ErrReviewReloaded = errors.New(textReviewReloaded)
	// ErrReviewFailed means the question channel failed; the channel's
	// error is wrapped too.
	ErrReviewFailed = errors.New(textReviewFailed)
	// ErrPlanChanging means the plan changed during each of the 3
	// reviews one call may ask for, so no answer was about the plan as it
	// stands: nothing was approved and plan mode stays on.
	ErrPlanChanging = errors.New(textPlanChanging)
	// ErrEditNotTaken means the user approved a plan they edited in the
	// review, but no exit extension takes an edit: nothing was approved.
	ErrEditNotTaken = errors.New(textEditNotTaken)

	// ErrOffWithImages means "/plan off" came with attachments and was
	// refused before anything changed.
	ErrOffWithImages = errors.New(textOffWithImages)
	// ErrSteerFailed means "/plan <message>" selected plan mode but the
	// message could not be sent; the agent's error is wrapped too.
	ErrSteerFailed = errors.New(textSteerFailed)
	// ErrNoSuchPlan means "/plan reopen N" named no plan of the session.
	ErrNoSuchPlan = errors.New(textNoSuchPlanSentinel)
	// ErrNoApprovedPlan means "/plan reopen" found no approved plan in
	// the session.
	ErrNoApprovedPlan = errors.New(textNoApprovedPlan)
	// ErrReopenWithImages means "/plan reopen" came with attachments and
	// was refused before anything changed.
	ErrReopenWithImages = errors.New(textReopenWithImages)
	// ErrReopenFailed means "/plan reopen" selected plan mode but could
	// not record the reopened plan; the cause is wrapped too.
	ErrReopenFailed = errors.New(textReopenFailed)
)

// errNoSessionID is the error of a session whose ID is empty: a host bug,
// logged once by the section and the pre-step listener.
var errNoSessionID = errors.New(textNoSessionID)
