package acp

// Names and descriptions the client shows for the session modes and the
// mode config option.
const (
	// ModeDefault is the ID of the default mode.
	ModeDefault = "default"
	// ModePlan is the ID of plan mode.
	ModePlan = "plan"
	// ConfigMode is the ID of the session config option that selects the
	// mode.
	ConfigMode = "mode"

	modeDefaultName = "Default"
	modeDefaultDesc = "The agent works on the task and may change files."
	modePlanName    = "Plan"
	modePlanDesc    = "The agent explores read-only and presents a plan for your review before changing anything."
	configModeName  = "Mode"
	configModeDesc  = "Plan mode: explore and plan first, change files only after you approve the plan."
)

// The agent's name and title in the initialize response.
const (
	agentName  = "planhost"
	agentTitle = "planhost (plan mode)"
)

// Texts the user sees in the client.
const (
	textUnknownCommand = "Unknown command /%s. Commands: %s."
	textNoCommands     = "none"
	textCommandFailed  = "/%s failed: %s"
	textPlanTitle      = "Plan: %s"
	textPlanUntitled   = "Plan"
	textQuestionTitle  = "Question"
	textToolFailed     = "%s failed"
	// textSessionBusy: another process runs the session's turn; its host
	// name, process ID and since when (UTC).
	textSessionBusy = "Session busy on %s (pid %d) since %s UTC; your message is queued for its turn."
	// textLeaseLost: this process lost the session's turn to another.
	textLeaseLost = "Another process took over this session's turn (this process was paused or cut off past its lease); its late writes were refused."
)

// The plan review's options, as the client shows them.
const (
	optionApprove      = "Yes, leave plan mode and carry out the plan"
	optionApproveClear = "Yes, carry it out from the plan alone (the conversation is cleared)"
	optionKeepPlanning = "No, keep planning: let the agent revise the plan"
	optionSpeak        = "No, stop here: I will say what to change"
	optionAbandon      = "No, drop the plan and leave plan mode"
	// optionApproveWith names the default mode's model (%s) when plan
	// mode has a model of its own.
	optionApproveWith = "Yes, leave plan mode and carry out the plan with %s"
)

// Model-facing tool errors of the routing workspace tools.
const (
	textNoWorkspace = "no workspace is bound to this session"
	// textChanged heads the diff of a plan that changed while the user
	// reviewed it.
	textChanged = "The plan changed while you were reviewing it; what changed (- before, + now):"
	// textReopened heads the diff of a plan against the plan the user
	// reopened as its draft.
	textReopened = "What changed since the plan you reopened (- before, + now):"
)

// Tool call titles, by workspace tool; %s is the path or pattern.
const (
	titleRead   = "Read %s"
	titleList   = "List %s"
	titleSearch = "Search for %q in %s"
	titleWrite  = "Write %s"
)

// Errors returned to the client as JSON-RPC errors; the SDK wraps them in
// an error object whose data carries the text.
const (
	errNotInitialized  = "call initialize before %s"
	errUnknownSession  = "unknown session %q: create it with session/new or load it with session/load"
	errBadCwd          = "cwd %q must be an absolute path to a directory"
	errNoPlanMode      = "plan mode is not enabled in this deployment, so the session has no modes"
	errUnknownMode     = "unknown mode %q: want %q or %q"
	errUnknownConfig   = "unknown config option %q: the only option is %q"
	errBoolConfig      = "config option %q takes a value id (%q or %q), not a boolean"
	errAudio           = "audio prompts are not supported: the agent advertises text, images and resources"
	errBadImage        = "image block %d: data is not valid base64: %v"
	errEmptyPrompt     = "the prompt is empty: send at least one text, image or resource block"
	errTurnFailed      = "the turn failed: %s"
	errSessionBusyLoad = "session %q is in use by a prompt: wait for it to finish or cancel it first"
)

// Wire errors: answers to lines that are not JSON-RPC 2.0 messages.
const (
	wireNotJSON       = "the message is not valid JSON: %v"
	wireNotObject     = "the message must be a JSON object (batches are not supported)"
	wireBadVersion    = `"jsonrpc" must be "2.0"`
	wireBadID         = `"id" must be a string, a number or null`
	wireBadMethod     = `"method" must be a non-empty string`
	wireBadParams     = `"params" must be an object or an array`
	wireNoMethod      = `a message without "method" must be a response: an "id" and exactly one of "result" and "error"`
	wireTooLarge      = "the message is larger than %d bytes"
	wireEmptyResponse = "dropped a malformed response"
)

// defaultDeployID names the demo's deployment, which runs without -config.
const defaultDeployID = "planhost acp (built-in deployment)"
