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

import (
	"fmt"
	"slices"
)

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
	// Error is a failure: a turn that ended with an error.
	Error
	// Reply is a command's reply (or failure) as the log records it. A
	// front end that shows the reply as the command returns leaves these
	// out, as it leaves out the User lines it echoed.
	Reply
)

// kindNames name the kinds in JSON (planhost inspect -json).
var kindNames = [...]string{Note: "note", Rule: "rule", User: "user", Assistant: "assistant",
	Reasoning: "reasoning", Tool: "tool", Plan: "plan", Diff: "diff", Box: "box", Error: "error", Reply: "reply"}

// MarshalText names the kind: "note", "rule", "user", ...
func (k Kind) MarshalText() ([]byte, error) { return marshalName(kindNames[:], int(k), "kind") }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error { return unmarshalName(kindNames[:], b, "kind", k) }

// Item is one thing a user sees of a session. Its JSON is the one
// "planhost inspect -json" prints.
type Item struct {
	// Seq is the position of the log event the item shows; 0 when it
	// shows none (a line a front end adds).
	Seq  uint64 `json:"seq"`
	Kind Kind   `json:"kind"`
	// Title heads a Plan, a Diff or a Box.
	Title string `json:"title,omitempty"`
	// Text is the item's text: Markdown for a Plan and an Assistant item,
	// a unified diff for a Diff, plain text otherwise.
	Text string `json:"text,omitempty"`
	// Rows and Footer are a Box's.
	Rows   []Row  `json:"rows,omitempty"`
	Footer string `json:"footer,omitempty"`
	// Internal marks what the user sees only with -verbose: request
	// headers, pending switches, notices and results written for the
	// model.
	Internal bool `json:"internal,omitzero"`
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

// statusNames name the statuses in JSON.
var statusNames = [...]string{Pending: "pending", InProgress: "in_progress", Completed: "completed", Unmarked: "none"}

// MarshalText names the status: "pending", "in_progress", "completed" or
// "none".
func (s Status) MarshalText() ([]byte, error) {
	return marshalName(statusNames[:], int(s), "status")
}

// UnmarshalText reads a status's name.
func (s *Status) UnmarshalText(b []byte) error {
	return unmarshalName(statusNames[:], b, "status", s)
}

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
	Status Status `json:"status"`
	// Text is the row's text (untrusted).
	Text string `json:"text"`
	// Note is an optional second line (untrusted): a step's
	// verification.
	Note string `json:"note,omitempty"`
}

func marshalName(names []string, i int, what string) ([]byte, error) {
	if i >= len(names) {
		return nil, fmt.Errorf("present: %s %d has no name", what, i)
	}
	return []byte(names[i]), nil
}

func unmarshalName[T ~uint8](names []string, b []byte, what string, v *T) error {
	i := slices.Index(names, string(b))
	if i < 0 {
		return fmt.Errorf("present: unknown %s %q", what, b)
	}
	*v = T(i)
	return nil
}
