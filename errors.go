package planmode

import (
	"errors"
	"fmt"
)

// Errors returned by the controller, the payload check and the config
// check. Callers test them with errors.Is; the returned errors wrap them
// with context.
var (
	// ErrNoAgent means a call named no agent (or an agent without a
	// session): plan mode belongs to an agent's session.
	ErrNoAgent = errors.New(textNoAgent)
	// ErrNotRunning means the controller is not started, or was stopped
	// (fx stop, reload).
	ErrNotRunning = errors.New(textNotRunning)
	// ErrBadPayload means a plan/mode event's active field is missing or is
	// not a boolean, or a plan/cancel or plan/reopen event's payload is
	// malformed.
	ErrBadPayload = errors.New(textBadPayload)
	// ErrBadConfig means a Config failed validation ([Config.Validate],
	// [New]) or a configuration node failed to decode (the plugin's decoder).
	ErrBadConfig = errors.New(textBadConfig)
	// ErrPlanMode means an agent is already in plan mode or entering it, so
	// Enter has nothing to do.
	ErrPlanMode = errors.New(textAlreadyPlanMode)
	// ErrKeepPlanning is the [*Error] of a review the user did not
	// approve: the model revises the plan. errors.Is matches every
	// keep-planning failure with it, whatever its message (the user's
	// feedback, feedback or an edit over the limit).
	ErrKeepPlanning = keepPlanning(textKeepPlanning)
	// ErrReviewDismissed is the [*Error] of a review the user dismissed to
	// speak instead.
	ErrReviewDismissed = &Error{Code: codeDismissed, Outcome: ExitDismissed, msg: textReviewDismissed}
)

// Error is a failure of exit_plan_mode or of the /plan command, told apart
// by its Code. Its message is what the model reads as the tool's error, or
// the user as the command's; Unwrap returns its cause, if any (the
// question channel's error, the agent's Steer error). errors.Is(err,
// target) holds for a target *Error with the same Code.
//
// The codes of exit_plan_mode, with the call's outcome:
//   - "no-agent", "not-plan-mode", "bad-input", "no-heading",
//     "no-channel", "too-large", "decided", "review-open": the call was
//     refused before the user saw the plan ([ExitRefused]): no calling
//     agent, the session not in plan mode, an input that is not {"plan":
//     string}, a plan without a level-1 heading, no way to ask the user, a
//     plan over 256 KiB, an earlier call of the batch approved or
//     abandoned, another call's review still open.
//   - "keep-planning": the user did not approve ([ExitKeepPlanning]); the
//     message carries their feedback when there is some.
//   - "plan-changing", "edit-not-taken": the answer approved no plan as it
//     stands ([ExitKeepPlanning]): the plan kept changing during the
//     review, or the user approved an edit that no extension takes.
//   - "dismissed" ([ExitDismissed]), "reloaded" ([ExitReloaded]),
//     "review-failed" ([ExitReviewFailed]): the review ended without an
//     answer.
//
// The codes of /plan (no Outcome): "off-with-images" and
// "reopen-with-images" (attachments refused), "steer-failed" (plan mode
// was selected but the message was not sent), "no-such-plan",
// "no-approved-plan" and "reopen-failed" ("/plan reopen").
type Error struct {
	// Code names the failure: one of the codes above.
	Code string
	// Outcome is the [ExitOutcome] exit_plan_mode reports for it; "" for
	// the errors of /plan.
	Outcome ExitOutcome

	msg   string
	cause error
}

// Error returns the message the model or the user reads.
func (e *Error) Error() string { return e.msg }

// Unwrap returns the cause, nil when there is none.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is an *Error with the same Code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// The codes of [Error].
const (
	codeNoAgent          = "no-agent"
	codeNotPlanMode      = "not-plan-mode"
	codeBadInput         = "bad-input"
	codeNoHeading        = "no-heading"
	codeNoChannel        = "no-channel"
	codeTooLarge         = "too-large"
	codeDecided          = "decided"
	codeReviewOpen       = "review-open"
	codeKeepPlanning     = "keep-planning"
	codePlanChanging     = "plan-changing"
	codeEditNotTaken     = "edit-not-taken"
	codeDismissed        = "dismissed"
	codeReloaded         = "reloaded"
	codeReviewFailed     = "review-failed"
	codeOffWithImages    = "off-with-images"
	codeReopenWithImages = "reopen-with-images"
	codeSteerFailed      = "steer-failed"
	codeNoSuchPlan       = "no-such-plan"
	codeNoApprovedPlan   = "no-approved-plan"
	codeReopenFailed     = "reopen-failed"
)

// The failures of exit_plan_mode and /plan whose message is fixed.
var (
	errExitNoAgent      = refused(codeNoAgent, textExitNoAgent)
	errExitNotPlanMode  = refused(codeNotPlanMode, textExitNotPlanMode)
	errExitNoHeading    = refused(codeNoHeading, textExitNoHeading)
	errExitNoChannel    = refused(codeNoChannel, textExitNoChannel)
	errExitDecided      = refused(codeDecided, textExitDecided)
	errExitReviewOpen   = refused(codeReviewOpen, textExitReviewOpen)
	errPlanChanging     = &Error{Code: codePlanChanging, Outcome: ExitKeepPlanning, msg: textPlanChanging}
	errEditNotTaken     = &Error{Code: codeEditNotTaken, Outcome: ExitKeepPlanning, msg: textEditNotTaken}
	errReviewReloaded   = &Error{Code: codeReloaded, Outcome: ExitReloaded, msg: textReviewReloaded}
	errOffWithImages    = &Error{Code: codeOffWithImages, msg: textOffWithImages}
	errReopenWithImages = &Error{Code: codeReopenWithImages, msg: textReopenWithImages}
	errNoApprovedPlan   = &Error{Code: codeNoApprovedPlan, msg: textNoApprovedPlan}
)

// refused returns an exit_plan_mode failure before the review.
func refused(code, msg string) *Error {
	return &Error{Code: code, Outcome: ExitRefused, msg: msg}
}

// keepPlanning returns a keep-planning failure with its message.
func keepPlanning(msg string) *Error {
	return &Error{Code: codeKeepPlanning, Outcome: ExitKeepPlanning, msg: msg}
}

// badInput returns the failure of an input that is not {"plan": string};
// the format and args say what is wrong with it.
func badInput(format string, args ...any) *Error {
	return refused(codeBadInput, textExitBadInput+fmt.Sprintf(format, args...))
}

// wrapped returns the failure of code with its message, caused by cause.
func wrapped(code string, outcome ExitOutcome, msg string, cause error) *Error {
	return &Error{Code: code, Outcome: outcome, msg: msg, cause: cause}
}

// Errors of a controller's start, and of a session it cannot serve.
var (
	errAlreadyRunning    = errors.New(textStarted)
	errMissingDependency = errors.New(textMissingDependency)
	errBadExtension      = errors.New(textBadExtension)
	// errNoSessionID is the error of a session whose ID is empty: a host
	// bug, logged once by the section and the pre-step listener.
	errNoSessionID = errors.New(textNoSessionID)
)
