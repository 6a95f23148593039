package planmode

// QueueExit is the hook the exit tool uses to record an approved exit,
// exposed to the external tests.
var QueueExit = (*Controller).queueExit
