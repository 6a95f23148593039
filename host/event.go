package host

import (
	"encoding/json"
	"time"
)

// Event is one entry of a session's append-only log.
//
// Seq and Time are assigned by the session when the event is appended; a
// caller leaves them zero. Data is the type-specific payload as raw JSON
// (one of the payload types in this package for the core types).
type Event struct {
	// Seq is the 1-based position of the event in its session's log.
	Seq uint64 `json:"seq"`
	// Type names the event, for example "turn/start" or "plan/mode".
	Type string `json:"type"`
	// Time is when the event was appended.
	Time time.Time `json:"time"`
	// Source tells who produced the event, when that matters (user messages).
	Source *Source `json:"source,omitempty"`
	// Data is the payload as raw JSON.
	Data json.RawMessage `json:"data,omitempty"`
}

// EventKind says whether an event type is part of what the model sees.
type EventKind int

const (
	// LogOnly events are durable and replayable but never reach the model.
	LogOnly EventKind = iota
	// Transcript events are part of the model transcript.
	Transcript
)

// String returns "log-only" or "transcript".
func (k EventKind) String() string {
	if k == Transcript {
		return "transcript"
	}
	return "log-only"
}

// EventType declares an event type and its kind. Plugins declare their own
// types (plan mode declares "plan/mode" as [LogOnly]); a host treats an
// undeclared type as log-only.
type EventType struct {
	// Name is the event type, by convention "noun/verb" or "noun/noun".
	Name string
	// Kind says whether the model sees events of this type.
	Kind EventKind
}

// EventTypes is the host's registry of event types.
type EventTypes interface {
	// DeclareEventType registers t. Declaring a name twice is ErrDuplicate.
	DeclareEventType(t EventType) (unregister func(), err error)
	// EventKind returns the kind declared for name, and false when the type
	// is not declared.
	EventKind(name string) (EventKind, bool)
}

// Core event types appended by the agent loop and the command registry.
const (
	TypeSessionCreated    = "session/created"
	TypeTurnStart         = "turn/start"
	TypeTurnEnd           = "turn/end"
	TypeStepStart         = "step/start"
	TypeStepEnd           = "step/end"
	TypeRequestHeader     = "request/header"
	TypeUserMessage       = "user/message"
	TypeAssistantMessage  = "assistant/message"
	TypeToolCall          = "tool/call"
	TypeToolResult        = "tool/result"
	TypeCommandRun        = "command/run"
	TypeCommandDone       = "command/done"
	TypeCompactionSummary = "compaction/summary"
)

// CoreEventTypes lists the core types with their kinds, in a fixed order.
func CoreEventTypes() []EventType {
	return []EventType{
		{TypeSessionCreated, LogOnly},
		{TypeTurnStart, LogOnly},
		{TypeTurnEnd, LogOnly},
		{TypeStepStart, LogOnly},
		{TypeStepEnd, LogOnly},
		{TypeRequestHeader, LogOnly},
		{TypeUserMessage, Transcript},
		{TypeAssistantMessage, Transcript},
		{TypeToolCall, Transcript},
		{TypeToolResult, Transcript},
		{TypeCommandRun, LogOnly},
		{TypeCommandDone, LogOnly},
		{TypeCompactionSummary, Transcript},
	}
}

// SourceKind says who produced a message.
type SourceKind string

const (
	// SourceUser marks what the user typed or steered.
	SourceUser SourceKind = "user"
	// SourcePlugin marks text a plugin added, such as a notice.
	SourcePlugin SourceKind = "plugin"
)

// Source tells who produced an event.
type Source struct {
	// Kind is user or plugin.
	Kind SourceKind `json:"kind"`
	// Plugin names the plugin when Kind is plugin.
	Plugin string `json:"plugin,omitempty"`
	// Form says what kind of plugin text it is, for example "notice".
	Form string `json:"form,omitempty"`
}

// SessionCreated is the payload of "session/created".
type SessionCreated struct {
	// ForkOf is the parent session's ID when the session is a fork.
	ForkOf string `json:"forkOf,omitempty"`
	// ForkEnd is the length of the parent prefix the fork copied.
	ForkEnd int `json:"forkEnd,omitempty"`
}

// TurnStart is the payload of "turn/start".
type TurnStart struct {
	Turn int `json:"turn"`
}

// TurnEndReason says why a turn ended.
type TurnEndReason string

const (
	// TurnCompleted means the model answered without further tool calls.
	TurnCompleted TurnEndReason = "completed"
	// TurnBlocked means a pre-step listener rejected a step.
	TurnBlocked TurnEndReason = "blocked"
	// TurnCancelled means the agent was cancelled.
	TurnCancelled TurnEndReason = "cancelled"
	// TurnError means the model request failed for good.
	TurnError TurnEndReason = "error"
	// TurnStepsExhausted means the turn reached the host's bound on steps
	// while the model still called tools. A log written before hosts
	// logged it has TurnError for such a turn.
	TurnStepsExhausted TurnEndReason = "steps-exhausted"
)

// TurnEnd is the payload of "turn/end".
type TurnEnd struct {
	Turn   int           `json:"turn"`
	Reason TurnEndReason `json:"reason"`
	// Error carries the message when Reason is error, blocked or
	// steps-exhausted.
	Error string `json:"error,omitempty"`
}

// StepStart is the payload of "step/start": an accepted step.
type StepStart struct {
	Turn    int `json:"turn"`
	Step    int `json:"step"`
	Attempt int `json:"attempt"`
	// Model names the model that answers the step's request, when the
	// host chooses among several (empty otherwise). It is a record only.
	Model string `json:"model,omitempty"`
}

// StepEnd is the payload of "step/end".
type StepEnd struct {
	Turn    int `json:"turn"`
	Step    int `json:"step"`
	Attempt int `json:"attempt"`
	// Error is set when the step's request failed.
	Error string `json:"error,omitempty"`
}

// HeaderReason says why a request header was logged.
type HeaderReason string

const (
	// HeaderInitial is the first request of a session.
	HeaderInitial HeaderReason = "initial"
	// HeaderResume is the first request after an existing session was opened.
	HeaderResume HeaderReason = "resume"
	// HeaderChange means the system prompt or tool catalog changed.
	HeaderChange HeaderReason = "change"
)

// RequestHeader is the payload of "request/header". It describes the system
// prompt and tool catalog a request was built with.
type RequestHeader struct {
	Reason HeaderReason `json:"reason"`
	// Sections names the rendered (non-empty) sections, in prompt order.
	Sections []string `json:"sections"`
	// SystemDigest is a hex SHA-256 of the system prompt text.
	SystemDigest string `json:"systemDigest"`
	// ToolsDigest is a hex SHA-256 of the tool catalog.
	ToolsDigest string `json:"toolsDigest"`
}

// BlockType names a content block's type.
type BlockType string

const (
	// BlockText is a text block.
	BlockText BlockType = "text"
	// BlockImage is an image block.
	BlockImage BlockType = "image"
)

// Block is one piece of message content: text or an image.
type Block struct {
	Type BlockType `json:"type"`
	// Text is set for text blocks.
	Text string `json:"text,omitempty"`
	// MediaType is the image's MIME type, for image blocks.
	MediaType string `json:"mediaType,omitempty"`
	// Data is the image's bytes (base64 in JSON), for image blocks.
	Data []byte `json:"data,omitempty"`
}

// TextBlock returns a text block.
func TextBlock(text string) Block { return Block{Type: BlockText, Text: text} }

// UserMessage is the payload of "user/message". The event's Source tells
// whether the user or a plugin wrote it.
type UserMessage struct {
	Content []Block `json:"content"`
}

// AssistantMessage is the payload of "assistant/message".
type AssistantMessage struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// Reasoning is the model's reasoning text (chain of thought) when the
	// provider returns it separately, as DeepSeek's thinking mode does
	// with reasoning_content. Some providers require it to be sent back
	// with the message's tool calls on later requests; empty when the
	// model gave none.
	Reasoning string `json:"reasoning,omitempty"`
	// Model names the model that wrote the message, when the host
	// chooses among several (see StepStart.Model); empty otherwise. A
	// host sends Reasoning back only to that model.
	Model string `json:"model,omitempty"`
}

// ToolCall is one tool call the model asked for; also the payload of
// "tool/call".
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ToolResult is the payload of "tool/result".
type ToolResult struct {
	CallID  string `json:"callId"`
	Name    string `json:"name"`
	Output  string `json:"output"`
	IsError bool   `json:"isError,omitempty"`
	// Outcome is the tool's code for how the call ended ([SetOutcome]),
	// "" when it supplied none. It is for front ends: the model never
	// reads it.
	Outcome string `json:"outcome,omitempty"`
}

// CommandRun is the payload of "command/run", logged before the handler runs.
type CommandRun struct {
	// ID pairs the run with its "command/done".
	ID   string `json:"id"`
	Name string `json:"name"`
	// Args is the raw argument text after the command name.
	Args string `json:"args"`
}

// CommandDone is the payload of "command/done", logged after the handler.
type CommandDone struct {
	ID string `json:"id"`
	// OK is true when the handler succeeded.
	OK bool `json:"ok"`
	// Text is the handler's reply, or the error message when OK is false.
	Text string `json:"text,omitempty"`
	// Outcome is the command's code for how the run ended ([SetOutcome]),
	// "" when it supplied none. It is for front ends: the model never
	// reads it.
	Outcome string `json:"outcome,omitempty"`
}

// CompactionSummary is the payload of "compaction/summary": the transcript
// the model sees restarts from this summary.
type CompactionSummary struct {
	Summary string `json:"summary"`
}
