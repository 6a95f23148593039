package eino

import (
	"errors"

	"github.com/dshgo/planmode/host/hostkit"
	"github.com/dshgo/planmode/refhost"
)

// name prefixes the package's errors.
const name = "planmode/eino"

// Model-facing texts. The tool results share the reference host's words
// where it has them, so a session reads the same whichever host wrote it.
const (
	textResultLost      = refhost.TextResultLost
	textToolCancelled   = refhost.TextToolCancelled
	textBadToolInput    = refhost.TextBadToolInput
	textToolPanicked    = refhost.TextToolPanicked
	textUnknownTool     = refhost.TextUnknownTool
	textTurnInterrupted = refhost.TextTurnInterrupted
	textToolInterrupted = refhost.ToolErrorPrefix + refhost.TextTurnInterrupted
	// textToolNotRun answers, at the end of a turn, a call Eino never ran
	// (the run failed first).
	textToolNotRun = refhost.ToolErrorPrefix + "the call was not run: the turn ended before it"
)

// textRunInterrupted is the turn/end error of a run a tool interrupted
// (compose.Interrupt): Agent.Run does not resume it.
const textRunInterrupted = "interrupted: a tool interrupted the Eino run (compose.Interrupt), which Agent.Run does not resume"

// errRunInterrupted ends a turn whose run a tool interrupted.
var errRunInterrupted = errors.New(textRunInterrupted)

// Warnings for Options.Logger.
const (
	warnLossHandlerPanicked = name + ": a tool's result-loss handler panicked; the host writes its own result"
	warnLeaseNotReleased    = name + ": turn lease not released; it expires by itself"
)

var (
	// ErrNoStore means [Options] name no store.
	ErrNoStore = errors.New("no store")
	// ErrBadRegistration means a registration is incomplete or malformed.
	ErrBadRegistration = hostkit.ErrBadRegistration
	// ErrNoAgent means a chat-model call or a tool call ran outside
	// [Agent.Run], so no session can log it.
	ErrNoAgent = errors.New("no plan-mode agent in the context: run the Eino agent with Agent.Run")
	// ErrBlocked means the pre-step chain rejected a step; the turn ends
	// blocked.
	ErrBlocked = errors.New("step rejected by the pre-step chain")
	// ErrToolRemoved means the model called a hosted tool that was
	// unregistered after the agent was made.
	ErrToolRemoved = errors.New("tool no longer registered")
)
