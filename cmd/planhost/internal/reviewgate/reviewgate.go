// Package reviewgate keeps input typed before a question appeared from
// answering it. A user typing a chat message as a plan review pops up must
// not approve the plan with it: input only answers a question when it was
// completed at least Grace after the question was shown.
//
// A terminal UI stamps each line (or key) with the time it was completed,
// opens a Gate when it shows a question (and again when it asks a follow-up,
// such as the feedback of Keep planning), and drops or defers the input the
// gate does not accept. Input without a time (a script on a pipe) is always
// accepted: it is not typed ahead, it is written ahead on purpose.
package reviewgate

import "time"

// Grace is how long after a question is shown input still counts as typed
// before it: nobody reads a review and answers it faster, so keys arriving
// this early were typed for something else.
const Grace = 300 * time.Millisecond

// Gate decides which input may answer one question.
type Gate struct {
	shown time.Time
}

// Open returns the gate of a question shown at shown.
func Open(shown time.Time) Gate { return Gate{shown: shown} }

// Accepts reports whether input completed at typed may answer the
// question: typed is zero (not typed), or at least Grace after the question
// was shown. A zero Gate accepts everything.
func (g Gate) Accepts(typed time.Time) bool {
	return typed.IsZero() || g.shown.IsZero() || !typed.Before(g.shown.Add(Grace))
}
