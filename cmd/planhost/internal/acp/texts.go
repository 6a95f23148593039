package acp

// The IDs of the session modes and of the config option that selects
// them; their names and descriptions are the catalog's (ACPWords).
const (
	// ModeDefault is the ID of the default mode.
	ModeDefault = "default"
	// ModePlan is the ID of plan mode.
	ModePlan = "plan"
	// ConfigMode is the ID of the session config option that selects the
	// mode.
	ConfigMode = "mode"
)

// The agent's name and title in the initialize response.
const (
	agentName  = "planhost"
	agentTitle = "planhost (plan mode)"
)

// textNoWorkspace is the model-facing error of a workspace tool called for
// a session without a workspace.
const textNoWorkspace = "no workspace is bound to this session"

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
