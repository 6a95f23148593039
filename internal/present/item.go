// Package present turns a session into what a user sees of it: the items
// of its transcript (messages, tool calls, plans, reviews and their
// outcomes, mode changes, the companions' boxes, questions and their
// answers, and the internal lines only -verbose shows), the menu of a
// question being asked, decided from its options' roles, and the lists
// /plans shows. Every user-facing word comes from one [Catalog], in the
// user's language (English or Chinese).
//
// Front ends render the items in their own medium: the terminal UI styles
// them, the line console and the demo print them as plain lines
// ([Plain]), inspect prints and encodes them, the HTML page and the ACP
// agent map them to their own forms. None of them reads words off a
// label or a message: they decide from item kinds, option roles and
// outcome codes.
//
// Text that comes from the model, a tool or the log is untrusted: items
// carry it as it is, and every renderer escapes it for its medium.
package present

// Kind says what an item is, and so how a front end shows it.
type Kind uint8

// The kinds of items.
const (
	// Note is a line about the session: a mode switch, the model that
	// answers, a review's outcome, a reply to a command. Front ends dim it.
	Note Kind = iota
	// Rule marks a change in the session on a line of its own: plan mode
	// on or off, another model answering.
	Rule
	// User is what the user wrote: a message, or feedback on a plan.
	User
	// Assistant is the model's answer.
	Assistant
	// Reasoning is the model's thinking, which front ends may fold.
	Reasoning
	// Tool is a tool call or its result, on one line.
	Tool
	// Plan is a plan: Title names it, Text is its Markdown.
	Plan
	// Diff is what changed between two versions of a plan: Title heads
	// it, Text is a unified diff.
	Diff
	// Box is a companion's status list (the plan's steps, the todo list,
	// the questions asked): Title, Rows and Footer.
	Box
	// Error is a failure: a turn that ended with an error, a command that
	// failed.
	Error
)

// Item is one thing a user sees of a session.
type Item struct {
	Kind Kind
	// Seq is the position of the log event the item shows; 0 when it
	// shows none (a line a front end adds).
	Seq uint64
	// Title heads a Plan, a Diff or a Box.
	Title string
	// Text is the item's text: Markdown for a Plan and an Assistant item,
	// a unified diff for a Diff, plain text otherwise.
	Text string
	// Internal marks what the user sees only with -verbose: request
	// headers, pending switches, notices and results written for the
	// model.
	Internal bool
	// Rows and Footer are a Box's.
	Rows   []Row
	Footer string
}

// Status is a row's state, which picks its mark.
type Status uint8

// The statuses of rows.
const (
	// Pending rows show ○.
	Pending Status = iota
	// InProgress rows show ▶ and are emphasised.
	InProgress
	// Completed rows show ✓ and are struck through.
	Completed
	// Unmarked rows show no mark (a question and its answer).
	Unmarked
)

// Marks of the statuses, as every text front end shows them.
const (
	MarkPending    = "○"
	MarkInProgress = "▶"
	MarkCompleted  = "✓"
)

// Mark returns the status's mark; "" for Unmarked.
func (s Status) Mark() string {
	switch s {
	case InProgress:
		return MarkInProgress
	case Completed:
		return MarkCompleted
	case Unmarked:
		return ""
	}
	return MarkPending
}

// Row is one line of a Box.
type Row struct {
	Status Status
	// Text is the row's text (untrusted).
	Text string
	// Note is an optional second line (untrusted): a step's
	// verification.
	Note string
}
