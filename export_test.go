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
