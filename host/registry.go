package host

import (
	"context"
	"encoding/json"
)

// AssembleContext is what a section sees when the system prompt is built.
type AssembleContext struct {
	// Agent is the agent the request is for; nil for an agent-less assembly
	// (for example a preview).
	Agent Agent
}

// Section is one named part of the system prompt.
type Section struct {
	// Name identifies the section, for example "plan:policy".
	Name string
	// Order places the section: sections are sorted by (Order, Name).
	Order int
	// Text renders the section; an empty result drops it from the prompt.
	// It runs on every request, so it should be cheap.
	Text func(ac AssembleContext) string
}

// Sections is the host's prompt-section registry.
type Sections interface {
	// AddSection registers s; a name already taken is ErrDuplicate.
	AddSection(s Section) (unregister func(), err error)
}

// ToolDefinition is what the model is told about a tool.
type ToolDefinition struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema is the JSON Schema of the tool's arguments.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the JSON Schema of a successful result, if any.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// CallContext describes one tool call.
type CallContext struct {
	// Agent is the calling agent; nil when the tool is called outside an
	// agent (a tool must then refuse work that needs one).
	Agent Agent
	// CallID is the model's ID for the call.
	CallID string
}

// Tool is a tool the model can call.
type Tool interface {
	// Definition returns the tool's definition. It must return the same
	// value on every call.
	Definition() ToolDefinition
	// Execute runs the call. ctx carries the call's cancellation. The
	// returned text is the result the model sees; an error becomes an
	// is-error result reading "Error: <message>". A tool whose results
	// front ends tell apart names how the call ended with [SetOutcome].
	Execute(ctx context.Context, call CallContext, input json.RawMessage) (string, error)
}

// ToolErrorPrefix starts the is-error result a host builds from a tool's
// error: the result reads ToolErrorPrefix + err.Error().
const ToolErrorPrefix = "Error: "

// Card is how a host UI may present a tool call or result.
type Card struct {
	// Kind tells the UI what the card is, for example "plan" or "review".
	Kind string `json:"kind"`
	// Title is the card's heading.
	Title string `json:"title"`
	// Body is Markdown.
	Body string `json:"body,omitempty"`
}

// Presenter is optionally implemented by a Tool that wants its calls and
// results shown as cards.
type Presenter interface {
	// PresentCall renders a call's input.
	PresentCall(input json.RawMessage) Card
	// PresentResult renders a call's result.
	PresentResult(input json.RawMessage, output string, isError bool) Card
}

// ResultLossHandler is optionally implemented by a Tool whose result has
// an effect that must not outlive a lost record of it, such as an approval.
//
// A host calls ResultLost, once, when Execute returned but the call's
// "tool/result" could not be appended to the log (err is the append's
// failure): the tool then undoes, or withdraws, what the result would have
// recorded. The host answers the call later with an is-error result, on its
// next successful append or when it resumes the session; a non-empty
// returned text is that result's output (it should start with
// [ToolErrorPrefix]), else the host writes its own. ResultLost must not
// block; it may append to the session, with [Append] under ctx, the
// turn's context.
type ResultLossHandler interface {
	ResultLost(ctx context.Context, call CallContext, err error) string
}

// Tools is the host's tool registry.
type Tools interface {
	// AddTool registers t; a name already taken is ErrDuplicate.
	AddTool(t Tool) (unregister func(), err error)
}

// Invocation is one run of a command.
type Invocation struct {
	// Agent is the agent the command runs for.
	Agent Agent
	// Args is the raw text after the command name (not trimmed).
	Args string
	// Attachments are image blocks sent with the command line.
	Attachments []Block
}

// Command is a slash command such as "/plan".
type Command struct {
	// Name is the command without the slash.
	Name string
	// Description is one line for help listings.
	Description string
	// Hint shows the arguments, for example "[off|message]".
	Hint string
	// AcceptsImages allows attachments; otherwise the host refuses them
	// before the handler runs.
	AcceptsImages bool
	// Run handles the command and returns its reply. A command whose runs
	// front ends tell apart names how the run ended with [SetOutcome].
	Run func(ctx context.Context, inv Invocation) (reply string, err error)
}

// Commands is the host's command registry.
type Commands interface {
	// AddCommand registers c; a name already taken is ErrDuplicate.
	AddCommand(c Command) (unregister func(), err error)
}
