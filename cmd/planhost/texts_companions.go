package main

// Flags of the companion plugins' parts of planhost.
const (
	flagAgentHelp     = "the agent's `ID`; its todo list carries over between its sessions"
	flagDocumentsHelp = "`directory` of agent documents such as the todo list (default: %s; in memory when no state directory is known; with a PostgreSQL -store, in its database)"
	flagHTMLHelp      = "also write a self-contained HTML page of the session's plans, models, questions, steps and todo list to `FILE`"
)
