package planmode

import (
	"errors"
	"fmt"
)

// Errors of the controller, the payload check and the config check, for
// errors.Is; the returned errors wrap them with context.
var (
	// ErrNoAgent means a call named no agent, or an agent without a session.
	ErrNoAgent = errors.New(textNoAgent)
	// ErrNotRunning means the controller is not started, or was stopped.
	ErrNotRunning = errors.New(textNotRunning)
	// ErrBadPayload means a plan/mode, plan/cancel or plan/reopen payload is
	// malformed.
	ErrBadPayload = errors.New(textBadPayload)
	// ErrBadConfig means a Config failed validation or its YAML failed to
	// decode.
	ErrBadConfig = errors.New(textBadConfig)
	// ErrPlanMode means the agent already is in plan mode or entering it.
	ErrPlanMode = errors.New(textAlreadyPlanMode)
	// ErrKeepPlanning matches every keep-planning [*Error], whatever its
	// message: the user did not approve and the model revises the plan.
	ErrKeepPlanning = keepPlanning(textKeepPlanning)
	// ErrReviewDismissed is the [*Error] of a review the user dismissed to
	// speak instead.
	ErrReviewDismissed = &Error{Code: "dismissed", Outcome: ExitDismissed, msg: textReviewDismissed}
)

// Error is a failure of exit_plan_mode or of the /plan command. Its message
// is what the model (a tool error) or the user (a command error) reads, and
// Unwrap returns its cause, if any. errors.Is(err, target) holds for a
// target *Error with the same Code. The codes:
//   - refused before the user saw the plan ([ExitRefused]): "no-agent",
//     "not-plan-mode", "bad-input", "no-heading", "no-channel", "too-large"
//     (over 256 KiB), "decided" (an earlier call of the batch ended the
//     review), "review-open" (another call's review is open);
//   - [ExitKeepPlanning]: "keep-planning" (with the user's feedback, if
//     any), "plan-changing" (the plan kept changing during the review),
//     "edit-not-taken" (an approved edit that no extension takes);
//   - "dismissed" ([ExitDismissed]), "reloaded" ([ExitReloaded]),
//     "review-failed" ([ExitReviewFailed]);
//   - /plan, with no Outcome: "off-with-images", "reopen-with-images",
//     "steer-failed", "no-such-plan", "plan-not-logged",
//     "no-approved-plan", "reopen-failed".
//
// A front end words a /plan failure for the user from Code, Plan and
// Plans; the message is English.
type Error struct {
	// Code names the failure: one of the codes above.
	Code string
	// Outcome is the [ExitOutcome] exit_plan_mode reports; "" for /plan.
	Outcome ExitOutcome
	// Plan is the number of the plan "/plan reopen" took, for
	// "plan-not-logged"; 0 otherwise.
	Plan int
	// Plans is how many plans the session has, for "no-such-plan" and
	// "plan-not-logged"; 0 otherwise.
	Plans int

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

// The failures of exit_plan_mode and /plan whose message is fixed.
var (
	errExitNoAgent      = refused("no-agent", textExitNoAgent)
	errExitNotPlanMode  = refused("not-plan-mode", textExitNotPlanMode)
	errExitNoHeading    = refused("no-heading", textExitNoHeading)
	errExitNoChannel    = refused("no-channel", textExitNoChannel)
	errExitDecided      = refused("decided", textExitDecided)
	errExitReviewOpen   = refused("review-open", textExitReviewOpen)
	errPlanChanging     = &Error{Code: "plan-changing", Outcome: ExitKeepPlanning, msg: textPlanChanging}
	errEditNotTaken     = &Error{Code: "edit-not-taken", Outcome: ExitKeepPlanning, msg: textEditNotTaken}
	errReviewReloaded   = &Error{Code: "reloaded", Outcome: ExitReloaded, msg: textReviewReloaded}
	errOffWithImages    = &Error{Code: "off-with-images", msg: textOffWithImages}
	errReopenWithImages = &Error{Code: "reopen-with-images", msg: textReopenWithImages}
	errNoApprovedPlan   = &Error{Code: "no-approved-plan", msg: textNoApprovedPlan}
)

// refused returns an exit_plan_mode failure before the review.
func refused(code, msg string) *Error {
	return &Error{Code: code, Outcome: ExitRefused, msg: msg}
}

// keepPlanning returns a keep-planning failure with its message.
func keepPlanning(msg string) *Error {
	return &Error{Code: "keep-planning", Outcome: ExitKeepPlanning, msg: msg}
}

// badInput returns the failure of an input that is not {"plan": string}.
func badInput(format string, args ...any) *Error {
	return refused("bad-input", textExitBadInput+fmt.Sprintf(format, args...))
}

// noSuchPlan returns the failure of "/plan reopen arg" that names no plan
// of the plans the session has.
func noSuchPlan(arg string, plans int) *Error {
	return &Error{Code: "no-such-plan", Plans: plans, msg: fmt.Sprintf(textNoSuchPlan, arg, plans)}
}

// planNotLogged returns the failure of "/plan reopen" for plan n of plans,
// whose text the log lacks.
func planNotLogged(n, plans int) *Error {
	return &Error{Code: "plan-not-logged", Plan: n, Plans: plans, msg: fmt.Sprintf(textPlanNotLogged, n)}
}

// wrapped returns the failure of code with its message, caused by cause.
func wrapped(code string, outcome ExitOutcome, msg string, cause error) *Error {
	return &Error{Code: code, Outcome: outcome, msg: msg, cause: cause}
}

// reopenFailed is the failure of "/plan reopen" to record the reopened
// plan or hand it to an extension.
func reopenFailed(err error) *Error {
	return wrapped("reopen-failed", "", textReopenFailed+": "+err.Error(), err)
}

// Errors of a controller's start, and of a session it cannot serve.
var (
	errAlreadyRunning    = errors.New(textStarted)
	errMissingDependency = errors.New(textMissingDependency)
	errBadExtension      = errors.New(textBadExtension)
	// errNoSessionID is the error of a session whose ID is empty: a host bug.
	errNoSessionID = errors.New(textNoSessionID)
)
