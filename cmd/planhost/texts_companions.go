package main

// Texts of the companion plugins' parts of planhost (companions.go,
// inspect_companions.go, demo_companions.go).
const (
	flagAgentHelp     = "the agent's `ID`; its todo list carries over between its sessions"
	flagDocumentsHelp = "`directory` of agent documents such as the todo list (default: %s)"
	flagHTMLHelp      = "also write a self-contained HTML page of the session's plans, steps and todo list to `FILE`"
)
