package tui

import (
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
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

// PlanReopener is a [Backend] that tells which plan of the session the
// log marks reopened ("/plan reopen"): its number as /plans numbers the
// plans, 0 for none. The UI asks after each command, for /plans.
type PlanReopener interface {
	ReopenedPlan() int
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

// EntryKind says how an entry of the transcript is shown.
type EntryKind int

const (
	// KindLine is plain text, wrapped to the width.
	KindLine EntryKind = iota
	// KindMeta is a status line (dimmed).
	KindMeta
	// KindUser is what the user typed.
	KindUser
	// KindAssistant is the assistant's text.
	KindAssistant
	// KindMarkdown is rendered as Markdown (plans, cards).
	KindMarkdown
	// KindReasoning is the model's thinking: dimmed, collapsed by default.
	KindReasoning
	// KindError is a failure.
	KindError
)

// Entry is one piece of the transcript. Text is already made safe to show
// (control characters of model, tool and log text escaped).
type Entry struct {
	Kind EntryKind
	Text string
}

// EventsMsg carries what new session events add to the screen.
type EventsMsg struct {
	Entries []Entry
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

// AskMsg asks the user questions (a plan review, or a plugin's questions).
// The answer is sent on Reply (buffered, one value).
type AskMsg struct {
	ID      int
	Request host.AskRequest
	Reply   chan<- AskResult
}

// BusyMsg says another process runs the session's turn: the message the
// user sent is queued in the log for that turn's next step.
type BusyMsg struct {
	Host  string
	PID   int
	Since time.Time
}

// LeaseLostMsg says another process took over the session's turn from
// this one, whose late writes were refused.
type LeaseLostMsg struct{}

// AskGoneMsg says the ask with ID was withdrawn (its context ended).
type AskGoneMsg struct {
	ID int
}

// CommandHelp describes a host command for /help.
type CommandHelp struct {
	Name, Hint, Description string
}

// internal messages
type (
	tickMsg    struct{ now time.Time }
	sentMsg    struct{ err error }
	commandMsg struct {
		name    string
		reply   string
		handled bool
		err     error
		// reopened is the number of the plan the log marks reopened
		// after the command (0 for none or no [PlanReopener]).
		reopened int
	}
	modeMsg struct {
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
