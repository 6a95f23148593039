package host

// SessionCloseNotifier is optionally implemented by a [Session] that can
// end while the process runs: a store closing it, a host dropping a session
// it no longer serves. Plugins that keep state per session in memory (the
// plan-mode controller keeps a small fold and the pending selection) use it
// to release that state; without it they keep it until they stop.
//
// It is optional so that every existing Session stays valid. A host that
// wraps sessions (for example a new wrapper value per call) forwards it
// from the wrapped session.
type SessionCloseNotifier interface {
	// AfterClose arranges for f to run once, in its own goroutine, after
	// the session is closed; when the session is already closed, f starts
	// at once. Calling the returned stop unregisters f: it reports true
	// when that kept f from running, and false when f already started (or
	// stop was called before). These are the semantics of
	// context.AfterFunc: a session keeps a context that it cancels when it
	// closes, and returns context.AfterFunc(thatContext, f).
	AfterClose(f func()) (stop func() bool)
}
