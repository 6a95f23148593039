package main

// Texts of the companion plugins' parts of planhost (companions.go,
// inspect_companions.go, demo_companions.go).
const (
	flagAgentHelp     = "the agent's `ID`; its todo list carries over between its sessions"
	flagDocumentsHelp = "`directory` of agent documents such as the todo list (default: %s; in memory when no state directory is known; with a PostgreSQL -store, in its database)"
	// stateWhatDocuments names the documents directory in messages.
	stateWhatDocuments = "documents directory"
	// errDocumentsWithDatabase refuses -documents with a database -store:
	// the documents live in the database then.
	errDocumentsWithDatabase = "-documents %s: the agent documents live in the -store database; leave -documents out"
	flagHTMLHelp             = "also write a self-contained HTML page of the session's plans, models, questions, steps and todo list to `FILE`"
)

// inspect's companion lines and the HTML page.
const (
	inspectPlanApproved = "#%d plan approved: %s"
	htmlTitle           = "Session %s"
	htmlPlans           = "Approved plans"
	htmlSteps           = "Steps"
	htmlTodo            = "Todo list"
	htmlNoPlans         = "No plan was approved in this session."
	htmlPlanUntitled    = "Plan"
	htmlPlanReopened    = "Reopened as the working draft (/plan reopen)."
	htmlNoSteps         = "No steps were tracked in this session."
	htmlNoTodo          = "The session wrote no todo list."
	htmlSummary         = "Summary:"
	htmlDeviation       = "Deviation:"
	htmlDeviationStep   = "Deviation (step %d):"
	// htmlModels heads the page's list of the models the steps went to.
	htmlModels = "Models"
	// htmlModelStep and htmlModelSteps name a run of steps: turn, step(s).
	htmlModelStep  = "Turn %d, step %d"
	htmlModelSteps = "Turn %d, steps %d–%d"
	// htmlModeDefault and htmlModePlan name the mode of a run of steps.
	htmlModeDefault = "default mode"
	htmlModePlan    = "plan mode"
	// htmlModelSwitch marks a change of model: from, to (escaped HTML).
	htmlModelSwitch = "model: %s → %s"
	// htmlExecuteWith follows a plan approved with "Approve and execute
	// with MODEL" (the model as escaped HTML).
	htmlExecuteWith = "Approved to execute with %s."
	htmlPageStyle   = `body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#24292f}
pre{white-space:pre-wrap;background:#f6f8fa;padding:.75em;border-radius:6px}
code{background:#f6f8fa;padding:0 .2em;border-radius:4px;overflow-wrap:anywhere}
.plan{border-left:3px solid #d0d7de;padding-left:1em;margin:1em 0}
.plan h1{font-size:1.5em}.plan h2{font-size:1.25em}
.session{color:#57606a}
.empty{color:#57606a;font-style:italic}
.models .model-switch{font-weight:600;list-style:none}
.execute-with{color:#57606a}
`
)

// The companions demo.
const (
	usageDemoCompanions = `Usage: planhost demo-companions [-keep]

Plays a scripted scene of the companion plugins on a sample workspace: in a
first session the model plans with steps, the user approves, the model runs
the steps with their verifications, changes one step with the user's
approval and completes the plan, keeping a todo list; in a second session
the same agent reads its list and finishes it. With -keep the directory with
the sessions, the documents and the workspace is kept; by default it is
removed at the end.

Flags:
`
	lineCompanionsStart   = "planhost companions demo: plan steps and the todo list, played by a scripted model and user"
	lineCompanionsSession = "== session %d of agent %s =="
)
