package planmode

// Model-facing notices. The plugin records one as a "user/message" with a
// plugin source when a user's change lands and the last request header
// described the other mode.
const (
	// NoticeEntered tells the model the user switched the session into plan
	// mode.
	NoticeEntered = "The user has switched this session into plan mode. " +
		"Follow the plan-mode guidance in the system prompt from now on."
	// NoticeLeft tells the model the user switched the session back to the
	// default mode.
	NoticeLeft = "The user has switched this session back to the default mode. " +
		"Plan-mode guidance no longer applies; continue with the task as usual."
)

// Error texts shown to host developers, users or the model. The error values
// built from them live in errors.go.
const (
	textNoAgent    = "no agent: plan mode belongs to an agent's session"
	textNotRunning = "the plan-mode service is not running"
	textStarted    = "the plan-mode service is already running"
	textBadPayload = "malformed plan/mode payload"
	textBadConfig  = "invalid config"

	textMissingDependency = "missing host registry"
	textNotComparable     = "session type %v is not comparable; the controller keys its state by session value"
)

// Payload-check problems; %s is the offending JSON value.
const (
	problemNotObject     = "payload %s is not a JSON object"
	problemActiveMissing = "active is missing; want true or false"
	problemActiveNotBool = "active is %s; want true or false"
)

// Config problems, reported by the loader as "FILE:LINE:COL: plan-mode:
// KEY: PROBLEM". %s is a kind of YAML value such as "a number".
const (
	problemNotString    = "must be a string, got %s (quote the text if YAML reads it as another type)"
	problemRequired     = "is required: the guidance text shown to the model while plan mode is active"
	problemBlank        = "must not be blank: give the guidance text shown to the model while plan mode is active"
	problemTooLong      = "must be at most %d characters, got %d"
	problemUnknownKey   = "unknown key (the only key is " + keySection + ")"
	problemKeyNotString = "keys must be strings, got %s"
	problemDuplicate    = "is given twice (first at line %d, column %d)"
	problemNotMapping   = "the configuration must be a mapping with the key " + keySection + ", got %s"
	problemInvalidText  = "is not a valid section text"
)

// Warnings logged through the host's logger.
const (
	warnAppendFailed = "plan-mode: could not append the pending plan/mode selection; it stays pending for a later step"
	warnNoticeFailed = "plan-mode: could not append the plan-mode notice"
)
