package planmode

// QueueExit is the hook the exit tool uses to record an approved exit,
// exposed to the external tests.
var QueueExit = (*Controller).queueExit

// Test-only views of the folds the controller keeps per session.
var (
	FoldHeaderMode   = foldHeaderMode
	SelectionForArgs = selectionForArgs
)

// HeaderMode is headerMode, for the fold tests.
type HeaderMode = headerMode

// The header modes.
const (
	HeaderUnknown  = headerUnknown
	HeaderActive   = headerActive
	HeaderInactive = headerInactive
)

// ServedSessions counts the sessions the running controller keeps state
// for; 0 when it is stopped.
func ServedSessions(c *Controller) int {
	r := c.run.Load()
	if r == nil {
		return 0
	}
	return r.served()
}
