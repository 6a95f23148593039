package tui

import (
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
)

// Backend is what the UI drives. Its methods are called from commands
// (tea.Cmd), never from Update.
type Backend interface {
	// Send hands a user message to the agent (a new turn, or steering
	// the running one).
	Send(text string) error
	// Command runs a host slash command ("/plan off"); handled is false
	// for an unknown command.
	Command(line string) (reply string, handled bool, err error)
	// Cancel cancels the running turn.
	Cancel()
	// SetPlan switches plan mode, queued while a turn runs, and returns
	// the mode after it.
	SetPlan(active bool) (Mode, error)
}

// Mode is the plan-mode state the status line shows.
type Mode struct {
	// Composed is false when the deployment has no plan mode.
	Composed bool
	// Active is the logged state.
	Active bool
	// Pending is a switch waiting for the next step.
	Pending planmode.Selection
}

// target is the mode in effect once the pending switch applies.
func (m Mode) target() bool {
	switch m.Pending {
	case planmode.SelectionActive:
		return true
	case planmode.SelectionInactive:
		return false
	}
	return m.Active
}

// EventsMsg carries what new session events add to the screen.
type EventsMsg struct {
	// Items are the events as the user sees them (package present); the
	// Internal ones show only with Config.Verbose.
	Items []present.Item
	// Mode is the plan-mode state after the events.
	Mode Mode
	// Model names the model that answered the last step, when the host
	// chooses among several (empty otherwise); the status line shows it.
	Model string
	// TurnStarted and TurnEnded report turn boundaries among the events.
	TurnStarted, TurnEnded bool
	// AssistantDone is set when an assistant message was logged: the
	// streamed text it replaces is cleared.
	AssistantDone bool
}

// DeltaMsg is a piece of a streamed answer.
type DeltaMsg struct {
	Text, Reasoning string
}

// AskResult is the answer to an AskMsg.
type AskResult struct {
	Answers []host.Answer
	Err     error
}

// AskMsg asks the user questions (a plan review, a consent, or the
// model's questions). The answer is sent on Reply (buffered, one value).
type AskMsg struct {
	ID      int
	Request host.AskRequest
	Reply   chan<- AskResult
	// Log is the session's log when the question came (the zero Log for
	// none): it tells the plan the user sent back last, for what changed.
	Log host.Log
}

// BusyMsg says another process runs the session's turn: the message the
// user sent is queued in the log for that turn's next step.
type BusyMsg struct {
	Host  string
	PID   int
	Since time.Time
}

// LeaseLostMsg says this process lost the session's turn: another process
// took it over, or the lease could not be renewed in time.
type LeaseLostMsg struct {
	Cause error // why: see refhost.Options.LeaseLost
}

// AskGoneMsg says the ask with ID was withdrawn (its context ended).
type AskGoneMsg struct {
	ID int
}

// internal messages
type (
	tickMsg struct{ now time.Time }
	// frameMsg shows the streamed text that came since the last frame.
	frameMsg struct{}
	// sentMsg says a message or a command reached the backend, with
	// what its reply adds to the transcript.
	sentMsg struct{ items []present.Item }
	// plansMsg is /plans' answer.
	plansMsg struct{ items []present.Item }
	modeMsg  struct {
		mode Mode
		err  error
	}
	editReadyMsg struct {
		path string
		err  error
	}
	editedMsg struct {
		text string
		err  error
	}
)
