package refhost

import (
	"context"

	"github.com/dshgo/planmode/host"
)

// Model is the language model the loop calls once per accepted step.
type Model interface {
	// Generate answers one request. An error is a request error: it goes
	// through the request-error listeners, which may ask for a retry.
	// The request's slices are shared with the runtime and must be treated
	// as read-only; the returned response belongs to the runtime.
	Generate(ctx context.Context, req Request) (Response, error)
}

// Request is what the loop derived for one step.
type Request struct {
	// System is the system prompt: the non-empty sections joined in
	// (Order, Name) order, separated by a blank line.
	System string
	// Sections names the sections that contributed text, in prompt order.
	Sections []string
	// Tools is the tool catalog, sorted by name.
	Tools []host.ToolDefinition
	// Messages is the transcript built from transcript-kind events.
	Messages []Message
	// Model is the name a [ModelChooser] chose for the step; empty when
	// the model is not one.
	Model string
}

// ModelChooser is implemented by a Model that answers with one of several
// models. The loop asks it once per step, after the pre-step listeners
// ran (so a mode they switched is in force), records the name on the
// step's "step/start" event and passes it in [Request.Model].
type ModelChooser interface {
	// ChooseModel names the model that answers agent's next request.
	ChooseModel(agent host.Agent) string
}

// Role says who a transcript message is from.
type Role string

const (
	// RoleUser is a user message (including plugin notices).
	RoleUser Role = "user"
	// RoleAssistant is a model message.
	RoleAssistant Role = "assistant"
	// RoleTool is a tool result.
	RoleTool Role = "tool"
)

// Message is one transcript entry as the model sees it.
type Message struct {
	Role Role
	// Content holds user message blocks (text and images).
	Content []host.Block
	// Text is the assistant text, the tool result, or a compaction summary
	// (as a user message).
	Text string
	// ToolCalls are the assistant's tool calls.
	ToolCalls []host.ToolCall
	// Reasoning is the assistant's reasoning text, as the model returned
	// it (empty when it returned none); a model adapter sends it back
	// where the provider requires it.
	Reasoning string
	// Model names the model that wrote an assistant message when a
	// [ModelChooser] chose it; empty otherwise.
	Model string
	// ToolCallID and IsError are set for tool results.
	ToolCallID string
	IsError    bool
}

// Response is the model's answer: text, tool calls, or both, and the
// reasoning text of a model that returns it separately.
type Response struct {
	Text      string
	ToolCalls []host.ToolCall
	// Reasoning is kept in the assistant message and handed back in
	// later requests' transcripts; empty when the model gave none.
	Reasoning string
}
