// Package reviewgate keeps typing that was not meant for a question from
// answering it. A user typing a chat message as a plan review pops up must
// not approve the plan with it ("ok go⏎" must not be Approve and Enter).
//
// The rule is a quiet keyboard: input only answers a question once the
// keyboard has been still for [Quiet] with the question on screen. Input
// that arrives sooner (typed before the question was drawn, or part of a
// burst of typing that is still going on) is refused, and each refused
// input restarts the wait, so a burst never answers however long it lasts.
// Once input was admitted the gate stays awake (the user is answering: an
// arrow key and Enter may follow quickly) until input that is not an answer
// puts it back to sleep ([Gate.Sleep]).
//
// A terminal UI stamps each key (or line) with the time it arrived, opens a
// Gate when it shows a question (and again when it asks a follow-up, such as
// the comments of Approve with comments), and drops the input the gate does
// not admit. Input without a time (a script on a pipe) is always admitted:
// it is not typed ahead, it is written ahead on purpose.
package reviewgate

import "time"

// Quiet is how long the keyboard must be still, with the question on
// screen, before input may answer it: nobody reads a review and answers it
// this fast, and typists rest less than this between keys, so input sooner
// than that was typed for something else.
const Quiet = 500 * time.Millisecond

// Gate decides which input may answer one question. The zero Gate admits
// input that comes at least Quiet after the zero time, that is, all of it.
type Gate struct {
	// since is when the quiet wait started: the question was shown, or
	// the latest input came, whichever is later.
	since time.Time
	// awake is set once input was admitted, until Sleep.
	awake bool
}

// Open returns the gate of a question shown at shown; last is when the
// input before the question arrived (zero when there was none), so that a
// burst of typing that began before the question must end before it.
func Open(shown, last time.Time) Gate {
	g := Gate{since: shown}
	if last.After(shown) {
		g.since = last
	}
	return g
}

// Admit reports whether input that arrived at typed may answer the
// question, and records it. It may when typed is zero (not typed: a
// script), when the gate is awake, or when typed is at least Quiet after
// both the question was shown and the input before it; admitting wakes the
// gate. Refused input restarts the wait.
func (g *Gate) Admit(typed time.Time) bool {
	if typed.IsZero() {
		return true
	}
	if g.awake || !typed.Before(g.since.Add(Quiet)) {
		g.awake = true
		g.since = later(g.since, typed)
		return true
	}
	g.since = later(g.since, typed)
	return false
}

// Sleep puts the gate back to sleep at typed: input that is none of the
// question's answers means the user is typing something else, and what
// follows must again wait for a quiet keyboard. It also restarts the wait
// when the question is drawn anew.
func (g *Gate) Sleep(typed time.Time) {
	g.awake = false
	g.since = later(g.since, typed)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
