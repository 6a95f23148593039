package planmode

// Hooks for the external tests: what the exit tool (issue 5) will call.
var (
	LoggedActive = (*Controller).loggedActive
	QueueExit    = (*Controller).queueExit
	Stopped      = (*Controller).stopped
)
