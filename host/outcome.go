package host

import (
	"context"
	"sync"
)

// An outcome is a short code that names how a tool call or a command run
// ended ("approved", "keep-planning", "entered", ...), for front ends: a
// host logs it in [ToolResult.Outcome] and [CommandDone.Outcome] and never
// puts it in the text the model reads, so a front end switches on the code
// and a reworded message changes nothing it shows. The codes are the
// tool's or the command's own; its package documents them. An event
// without one (a tool or command that supplies none, a log written before
// outcomes were logged) has the outcome "", which means unknown.
//
// A tool or command supplies its outcome with [SetOutcome] on the context
// its Execute or Run was given; the host reads it with the func
// [RecordOutcome] returned when it made that context.

// outcomeKey is the context key of an outcome recorder.
type outcomeKey struct{}

// outcomeRecorder holds the outcome of one call or run.
type outcomeRecorder struct {
	mu   sync.Mutex
	code string
}

// SetOutcome records code as the outcome of the tool call or command run
// ctx was passed to (or a context derived from it); a later call replaces
// it. It does nothing when ctx comes from a host that records no outcome.
// It is safe to call from any goroutine.
func SetOutcome(ctx context.Context, code string) {
	if r, ok := ctx.Value(outcomeKey{}).(*outcomeRecorder); ok {
		r.mu.Lock()
		r.code = code
		r.mu.Unlock()
	}
}

// RecordOutcome returns a context to pass to one tool call's Execute or
// one command's Run, and a func that returns the outcome recorded in it
// with [SetOutcome] ("" when none was). A host logs that outcome in the
// call's [ToolResult] or the run's [CommandDone].
func RecordOutcome(ctx context.Context) (context.Context, func() string) {
	r := &outcomeRecorder{}
	return context.WithValue(ctx, outcomeKey{}, r), func() string {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.code
	}
}
