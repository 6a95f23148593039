package refhost

import (
	"errors"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hostkit"
)

// Texts the loop writes into the log, where the model or the user reads them.
const (
	// ToolErrorPrefix starts the result of a tool call that failed; the
	// error's message follows.
	ToolErrorPrefix = host.ToolErrorPrefix
	// TextUnknownTool is the is-error result of a call to a tool that is not
	// registered; %q is the tool name.
	TextUnknownTool = ToolErrorPrefix + "unknown tool %q; use only the tools you were given"
	// TextToolCancelled is the is-error result of a tool call that was not
	// run because the turn was cancelled.
	TextToolCancelled = ToolErrorPrefix + "the call was cancelled before it ran"
	// TextBadToolInput is the is-error result of a call whose arguments are
	// not valid JSON; the tool is not run.
	TextBadToolInput = ToolErrorPrefix + "the arguments are not valid JSON; send a JSON object"
	// TextToolPanicked is the error of a tool whose Execute panicked; %v is
	// the panic value.
	TextToolPanicked = "the tool crashed: %v"
	// TextGuardPanicked is the refusal of a tool call whose guard panicked;
	// %v is the panic value. A broken guard fails closed.
	TextGuardPanicked = hostkit.TextGuardPanicked
	// TextStepCancelled is the "step/end" error of a step cut short by
	// cancellation.
	TextStepCancelled = "cancelled"
	// TextTurnInterrupted is the "turn/end" error and tool result the runtime
	// writes when it resumes a session whose last turn never ended.
	TextTurnInterrupted = "interrupted: the process stopped before the turn ended"
	// TextResultLost is the is-error result of a tool call whose own
	// result could not be written to the log: the runtime writes it on its
	// next successful append, or when it resumes the session, and puts it
	// into every request whose log still lacks the call's result.
	TextResultLost = ToolErrorPrefix + "the result of this call was lost: it could not be written to the session log, so do not assume the call took effect"
	// TextResultNotRun is the is-error result of a tool call of the same
	// batch that was not run because an earlier call's record failed.
	TextResultNotRun = ToolErrorPrefix + "the call was not run: the session log could not record an earlier call of the batch"
	// TextImagesRefused is the "command/done" text when images were sent to a
	// command that does not accept them; %s is the command name.
	TextImagesRefused = "/%s does not accept images"
)

// Errors of the runtime.
var (
	// ErrEmptyName means a registration or command has no name.
	ErrEmptyName = hostkit.ErrEmptyName
	// ErrBadRegistration means a registration is incomplete or malformed.
	ErrBadRegistration = hostkit.ErrBadRegistration
	// ErrEmptyMessage means a steered or injected message has no content.
	ErrEmptyMessage = errors.New("message has no content")
	// ErrAgentStopped means the agent was stopped and takes no more input.
	ErrAgentStopped = errors.New("agent stopped")
	// ErrImagesRefused means images were attached to a command that does not
	// accept them.
	ErrImagesRefused = errors.New("command does not accept images")
	// ErrNoAgent means an operation that needs an agent got none.
	ErrNoAgent = errors.New("no agent")
	// ErrAttemptsExhausted means a step's request failed on every attempt.
	ErrAttemptsExhausted = errors.New("request attempts exhausted")
	// ErrStepsExhausted means a turn reached the runtime's step bound while
	// the model kept calling tools.
	ErrStepsExhausted = errors.New("step limit of the turn reached")
	// ErrNotMyAgent means an agent passed to the runtime is not one of its
	// own.
	ErrNotMyAgent = errors.New("not an agent of this runtime")
	// ErrBadQuestion means a user question has an empty or repeated ID.
	ErrBadQuestion = errors.New("bad question")
)
