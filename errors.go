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
	// ErrBadConfig means a Config failed validation.
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
