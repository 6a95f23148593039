package main

import "errors"

// Errors of the program.
var (
	// errNoReview is the demo reviewer's answer when its story has no
	// verdict left or the request is not a plan review.
	errNoReview = errors.New("the demo's reviewer has no answer for this request")
	// errValidateOnly is the answer of the model validate composes; it
	// is never asked, because validate runs no session.
	errValidateOnly = errors.New("validate runs no session")
	// errNotJSONL means inspect was given a file that is not a session
	// file (*.jsonl).
	errNotJSONL = errors.New("not a session file: want a .jsonl file named after its session ID " +
		"(a session in PostgreSQL is named by its ID with -store postgres or -store URL)")
	// errNotRegular means inspect was given something other than a
	// regular file (a FIFO, a device, a directory) to read, or found one,
	// or a symbolic link, where -html is to write.
	errNotRegular = errors.New("not a regular file")
)

// Where the state and the workspace meet.
const (
	errStateInWorkspace = "the %s %s is inside the workspace %s, where the model's write_file could rewrite it; " +
		"pass -sessions DIR outside the workspace, or -workspace DIR that does not contain it"
	errWorkspaceInState = "the workspace %s is inside the %s %s, where planhost keeps its own files; " +
		"pass -workspace DIR outside it"
	stateWhatSessions = "sessions directory"
	stateWhatState    = "state directory"
	stateWhatPlans    = "plan directory"

	errPlansInWorkspace = "the plan directory %s (plan-file's dir in %s) is inside the workspace %s, where the model's " +
		"write_file could rewrite a plan while the user reviews it; set plan-file's dir outside the workspace, " +
		"or pass -workspace DIR that does not contain it"
	errWorkspaceInPlans = "the workspace %s is inside the plan directory %s (plan-file's dir in %s), where planhost " +
		"keeps the plans under review; pass -workspace DIR outside it"
)

// The state directory and the history file.
const (
	errNoStateDir      = "no state directory: HOME and XDG_STATE_HOME are unset (set one, or pass -sessions DIR; the terminal needs one for its history)"
	errHistory         = "history file: %s: %w"
	errHistoryDirKind  = "history file: %s is not a directory"
	errHistoryDirOwner = "history file: %s belongs to another user"
	errHistoryDirMode  = "history file: %s has mode %#o, which lets other users in; run: chmod 700 %s"
	errHistoryFileKind = "history file: %s is not a regular file"
)

// Repairs the session store made, one line each.
const (
	lineRepaired      = "planhost %s: repaired %s: %s"
	noteInspectRepair = "; in %s's private copy only, the file itself is unchanged"
)

// The system-prompt section planhost adds for the model.
const (
	baseSectionName  = "planhost:base"
	baseSectionOrder = 10
	baseSectionText  = "You are a coding agent working in a workspace directory. Explore it with list_files, " +
		"read_file and search, and change it with write_file. Paths are relative to the workspace root. " +
		"Keep answers short."
)

// Usage texts, printed for -h and for usage errors.
const (
	usageMain = `planhost runs an agent host with the plan-mode plugin.

Usage:
  planhost demo                    play a scripted plan-mode session on a sample workspace
  planhost demo-companions         play a scripted scene of the companion plugins (steps, todo list)
  planhost run -config FILE        an interactive session in the terminal
  planhost validate -config FILE   check a deployment file and build the host without running it
  planhost inspect SESSION         show a session's plan-mode timeline
  planhost export SESSION          write a session (file or PostgreSQL) as a JSONL session file
  planhost import FILE.jsonl       load a JSONL session file into a store (PostgreSQL or a sessions directory)
  planhost acp                     serve the Agent Client Protocol on stdin/stdout (editors)

Run "planhost COMMAND -h" for a command's flags.
Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error.
`
	usageDemo = `Usage: planhost demo [-keep] [-scene entry]

Plays a complete plan-mode session with an embedded deployment, a scripted
model and a scripted reviewer, on a sample workspace copied to a temporary
directory: the user enters plan mode with a request, the model explores with
read-only tools and presents a plan, the reviewer asks for one revision and
then approves, and the model carries the plan out. The temporary directory
is removed at the end; with -keep it stays, with the session file (its path
is printed at the end) and the changed workspace.

Flags:
`
	usageRun = `Usage: planhost run -config FILE [-session ID|FILE.jsonl | -continue] [-sessions DIR] [-store file|postgres|URL] [-model scripted:FILE|openai] [-workspace DIR]

An interactive session. Type a message to send it to the model, or:
  /plan            enter plan mode
  /plan <message>  enter plan mode and send the message
  /plan off        leave plan mode
  /plans [N]       list the plans of this session (terminal), or show plan N
  /help            list the keys and commands
  /quit            leave (so does Ctrl-D)
In a terminal: enter sends, alt+enter adds a line, shift+tab switches plan
mode (queued while the model works), esc cancels the running turn, ctrl+o
shows the model's thinking, pgup/pgdown scroll. When the model presents a
plan you choose Approve, Save plan and stop, Keep planning (and write
feedback), Edit (in $VISUAL or $EDITOR) or Dismiss, with the key in brackets
or the arrows and enter; v shows or hides a long diff of a revised plan.
-verbose also shows the host's internal lines. Ctrl-C cancels the running turn; a second Ctrl-C exits. The status
line shows the mode, with an arrow when a switch waits for the next step.
When stdin or stdout is not a terminal, planhost reads one input per line
and review answers as lines (a, k then the feedback line, d).

With -store postgres (the URL in DATABASE_URL) or -store postgres://...
sessions live in PostgreSQL, where host processes on many machines can
share them; the file store in -sessions is the default.

With -model openai the flags below, or OPENAI_BASE_URL, OPENAI_MODEL and
OPENAI_API_KEY, configure any OpenAI-compatible chat-completions endpoint.
-plan-model (or PLAN_OPENAI_MODEL) names another model for plan mode, with
-plan-base-url and -plan-api-key (PLAN_OPENAI_BASE_URL, PLAN_OPENAI_API_KEY)
when its endpoint or key differ; each step goes to the model of the mode
in force at that step.

Flags:
`
	usageValidate = `Usage: planhost validate -config FILE

Loads the deployment file and builds the host's whole dependency graph
without running a session. Exit 0 when it is valid; otherwise exit 2 with
every problem on its own line as FILE:LINE:COL: plugin: key: problem.

Flags:
`
	usageInspect = `Usage: planhost inspect [-json] [-html OUT] [-store file|postgres|URL] SESSION

Prints a session's plan-mode timeline: every plan/mode event, plan-mode
notice, request header (and whether it carried plan:policy), /plan command
and plan review outcome, then the projection {active, pending} at the end of
the log. SESSION is a session file (FILE.jsonl), or with -store postgres
(the URL in DATABASE_URL) or -store postgres://... a session ID in that
database. The session is only read.

Flags:
`
)

// Texts of "planhost export" and "planhost import" (transfer.go).
const (
	usageExport = `Usage: planhost export [-store file|postgres|URL] [-o FILE [-force]] SESSION

Writes a session as a JSONL session file, the format of the file store, to
stdout or to -o FILE: SESSION is a session file (FILE.jsonl), or with -store
postgres (the URL in DATABASE_URL) or -store postgres://... a session ID in
that database. Every event is checked as the stores check an append, and the
plan-mode payloads as a resume checks them. The session is only read. Name
the file after the session (ID.jsonl) to import it elsewhere. stdout must
not be a terminal (the log holds the model's raw text).

Flags:
`
	usageImport = `Usage: planhost import [-store file|postgres|URL] [-sessions DIR] [-session ID] [-replace] FILE.jsonl

Loads a JSONL session file (written by the file store or by planhost export)
into a store: PostgreSQL with -store postgres (the URL in DATABASE_URL) or
-store postgres://..., or the sessions directory -sessions of the file
store (the default). The session keeps the file's ID (FILE is ID.jsonl)
unless -session names another. Every event is checked as the store checks
an append, and the plan-mode payloads as a resume checks them; a line that
fails is named (FILE:LINE) and nothing is stored: the import is one
transaction in PostgreSQL, and a file linked into the sessions directory only
once complete. An existing session is left alone unless -replace is given;
a session file another planhost holds open is never replaced, and in
PostgreSQL replace only a session no planhost has open.

Flags:
`
	flagExportOutHelp     = "write the session file to `FILE` instead of stdout (a new file, unless -force)"
	flagExportForceHelp   = "replace an existing -o file"
	flagImportSessionHelp = "store the session under this `ID` (default: the file's name without .jsonl)"
	flagImportReplaceHelp = "replace a session that exists under the ID"

	errNeedSession      = "planhost %s: SESSION is required\n"
	errExportToTerminal = "stdout is a terminal: name a file with -o FILE, or redirect stdout"
	errFileExists       = "%s: %w; pass -force to replace it"
	errImportExists     = "%w; pass -replace to replace it"
	errImportTorn       = "%s:%d: the last line is incomplete (a write that never finished); nothing was imported: " +
		"remove the line, or open the session once with planhost run, which cuts it off"
	lineExported = "planhost export: session %s (%d events) written to %s\n"
	lineImported = "planhost import: %s (%d events) stored as session %s in %s\n"
)

// Flag descriptions.
const (
	flagConfigHelp      = "deployment `file` (YAML)"
	flagSessionHelp     = "resume the session with this `ID` (default: start a new one)"
	flagSessionsHelp    = "`directory` of session files (default: %s)"
	flagLeaseHelp       = "with a postgres -store: how long this process's hold on a session's running turn lasts without renewal; a crashed process's turn is taken over after it"
	flagStoreHelp       = "where sessions live: file (in -sessions), postgres (the database in $DATABASE_URL) or a postgres:// `URL`"
	flagModelHelp       = "`model`: scripted:FILE (a refhost/scripted YAML script) or openai"
	flagWorkspaceHelp   = "workspace `directory` the model's file tools are confined to"
	flagBaseURLHelp     = "OpenAI-compatible API base `URL` (default $OPENAI_BASE_URL, else https://api.openai.com/v1)"
	flagModelNameHelp   = "model `name` for -model openai (env OPENAI_MODEL)"
	flagAPIKeyHelp      = "API `key` for -model openai (default $OPENAI_API_KEY; prefer the environment)"
	flagRetriesHelp     = "`n` retries of a failed request for -model openai"
	flagTimeoutHelp     = "`duration` the endpoint may stay silent while an answer streams (the whole request with -stream=false) for -model openai"
	flagMaxResponseHelp = "largest response body in `bytes` the endpoint may send for -model openai"
	flagPlanModelHelp   = "model `name` that answers in plan mode, with -model openai (env PLAN_OPENAI_MODEL; default: the -openai-model answers in both modes)"
	flagPlanBaseURLHelp = "API base `URL` of the -plan-model when it differs (default $PLAN_OPENAI_BASE_URL, else the -openai-base-url)"
	flagPlanAPIKeyHelp  = "API `key` of the -plan-model (default $PLAN_OPENAI_API_KEY, else the -openai-api-key unless -plan-base-url names another endpoint)"
	flagJSONHelp        = "print the timeline as JSON"
	flagKeepHelp        = "keep the demo directory (session file and changed workspace) after the demo; it is removed by default"
	flagStreamHelp      = "stream answers from -model openai (text appears as it arrives; an endpoint that refuses gets one request)"
	flagLangHelp        = "`language` of the terminal UI: en or zh (default: from LC_ALL, LC_MESSAGES, LANG)"
	flagSourceStoreHelp = "where the session lives: file (SESSION is a session file), postgres (the database in " +
		"$DATABASE_URL) or a postgres:// `URL` (SESSION is its ID)"
	flagContinueHelp = "resume the session changed last in the store in use (-store): the newest file in -sessions, or the database's"
	flagVerboseHelp  = "terminal UI: also show the internal lines (request headers, pending switches, exit_plan_mode's result for the model)"
)

// Texts of -store.
const (
	errStoreValue         = "-store %q: want file, postgres or a postgres:// URL"
	errStoreHidden        = "(value hidden: it may hold a password)"
	errStoreNoDatabaseURL = "-store postgres: %s is not set"
	lineStorePostgres     = "PostgreSQL database %s on %s"
)

// Errors and notes printed by the program.
const (
	errUnknownCommand     = "planhost: unknown command %q\n\n"
	errNoCommand          = "planhost: no command given\n\n"
	errExtraArgs          = "planhost %s: unexpected arguments: %q\n"
	errConfigAsArg        = "planhost %s: unexpected argument %q; a deployment file is given with -config: planhost %s -config %s\n"
	errNeedConfig         = "planhost %s: -config FILE is required\n"
	errNeedFile           = "planhost inspect: SESSION is required: a session file, or a session ID with -store\n"
	errBadModel           = "planhost run: -model %q: want scripted:FILE or openai\n"
	errPrefix             = "planhost %s: %v\n"
	errContinueAndSession = "-continue and -session both name a session; use one"
	errNoSessions         = "no session in %s"
	errSessionNotIn       = "session %s not found in %s"
	errTurnFailed         = "planhost demo: the story did not end as scripted: %s\n"
	errPlanModelSame      = "-plan-model %q: the default mode's model has the same name; name another model, or leave -plan-model out"
	errPlanModelScripted  = "-plan-model (or PLAN_OPENAI_MODEL): needs -model openai"
	errPlanModelNoPlan    = "-plan-model: the deployment does not enable plan-mode"
)

// Transcript texts of the console.
const (
	promptDefault    = "[default] › "
	promptPlan       = "[plan] › "
	promptNoMode     = "› "
	promptPendingFmt = "[%s → %s] › "
	promptReview     = "review [%s] › "
	promptEdit       = "edit › "
	promptFeedback   = "feedback (empty for none) › "
	promptAnswer     = "answer [%s] › "

	cmdQuit    = "/quit"
	cmdExit    = "/exit"
	cmdHelp    = "/help"
	cmdPlans   = "/plans"
	dismissKey = "d"
	editKey    = "e"
	// editEnd is the line that ends an edited plan typed in the line
	// console.
	editEnd = "."

	modeDefault = "default"
	modePlan    = "plan"

	lineModeOn    = "── plan mode on ──"
	lineModeOff   = "── plan mode off: default mode ──"
	lineHeader    = "  · request %s: sections %s"
	lineModel     = "── model %s ──"
	linePending   = "  · switch pending: %s mode from the next step"
	lineAssistant = "assistant: "
	lineReasoning = "  · reasoning: %s"
	lineRecap     = "Resumed session %s (%d events). The last exchanges:"
	lineModelAt   = "model %s at %s"
	maxRecap      = 200

	lineNotice     = "notice (%s): "
	lineToolCall   = "  → %s"
	lineToolResult = "  ← %s"
	lineCard       = "  ▍%s: %s"
	lineTurnEnd    = "  · turn %d ended: %s"
	lineCompacted  = "  · transcript compacted"
	lineReply      = "  /%s: %s"
	lineCmdError   = "  /%s failed: %v"
	lineUnknownCmd = "  unknown command %q; /help lists the commands"
	lineQueued     = "  · queued for the next step"
	// lineSessionBusy: another process runs the session's turn; host,
	// pid, since (UTC).
	lineSessionBusy = "  · session busy on %s (pid %d) since %s; your message is queued for its turn"
	// lineLeaseLost: this process lost the turn to another process.
	lineLeaseLost  = "  · another process took over this session's turn (this process was paused or cut off past its lease); its late writes were refused"
	lineReviewHead = "┌─ %s: %s"
	lineReviewOpt  = "│  [%s] %s — %s"
	lineReviewEnd  = "└─"
	// lineReviewChanged heads the diff of a plan that changed while the
	// user reviewed it.
	lineReviewChanged = "The plan changed while you were reviewing it; what changed (- before, + now):"
	// lineReviewRevised heads the diff of a plan against the plan sent
	// back for a revision in the review before.
	lineReviewRevised = "What changed since the plan you sent back (- before, + now):"
	// lineReviewReopened heads the diff of a plan against the plan the
	// user reopened as its draft.
	lineReviewReopened = "What changed since the plan you reopened (- before, + now):"
	lineEditHow        = "  Type the plan as it should be (Markdown; pasting works), then a line holding only . to end it. A . alone keeps the plan as it is."
	lineEditUnchanged  = "  · the plan was not changed"
	lineEditChanged    = "You edited the plan; what changed (- before, + now):"
	lineEditedNote     = "  · you edited this plan; the edited text is what an approval approves"
	linePlanFile       = "  plan file: %s"
	lineReviewer       = "reviewer: %s"
	lineReviewBad      = "  please answer one of %s"
	lineReviewGone     = "  · review closed: %s"
	lineTypedAhead     = "  · ignored %q: it came before the question appeared, or too soon after it or after the line before; read the question, then answer"
	lineCancelling     = "  · cancelling the turn (Ctrl-C again to exit)"
	lineInterruptIdle  = "  · nothing is running (Ctrl-C again or /quit to exit)"
	lineSteerError     = "  could not send the message: %v"
	lineBye            = "bye"
	lineSession        = "session %s (%s)"
	lineResumed        = "resumed session %s: %d events"
	lineSessionFile    = "session file: %s"
	lineDemoStart      = "planhost demo: a scripted plan-mode session on a sample Go package (copied to a temporary directory)"
	lineDemoKept       = "The demo directory keeps sessions/ (the session log) and workspace/ (the changed sample)."
	lineDemoRemoved    = "The demo directory was removed (run with -keep to keep it)."
	lineHelpHeader     = "commands:"
	lineHelpCmd        = "  /%s %s — %s"
	lineHelpHelp       = "  /help — this list"
	lineHelpPlans      = "  /plans — the plans of this session, how each review ended and which one is reopened"
	// linePlansHeader heads the line console's /plans.
	linePlansHeader = "Plans presented in this session (/plan reopen N reopens one):"
	lineHelpQuit    = "  /quit — leave (also Ctrl-D)"
	lineInputEnded  = "input ended"
	lineDismissed   = "dismissed"

	optionDismiss     = "dismiss"
	optionDismissHelp = "close the review and talk to the model instead"
	optionEdit        = "edit"
	optionEditHelp    = "type the plan as it should be, then approve or send it back"
	resultLines       = "%s (+%d more lines)"
	resultError       = "error: %s"
	inputBytes        = "%d bytes"
)

// Validate texts.
const (
	lineValid      = "%s: ok (plugins: %s)"
	lineGraphError = "%s: host: %v"
)

// Inspect texts.
const (
	inspectSession   = "session %s: %d events"
	inspectTurnStart = "#%d turn %d started"
	inspectMode      = "#%d plan/mode active=%t"
	inspectNotice    = "#%d notice: %s"
	inspectModel     = "#%d model %s"
	// inspectModelSwitch is a step answered by another model than the
	// steps before it: from, to.
	inspectModelSwitch = "#%d model: %s → %s"
	// inspectExecuteWith follows a review approved with "Approve and
	// execute with MODEL".
	inspectExecuteWith = " (execute with %s)"
	inspectHeader      = "#%d request/header %s: plan:policy %s (sections: %s)"
	inspectCommand     = "#%d /plan %s"
	inspectCommandRes  = "#%d /plan done ok=%t: %s"
	inspectReview      = "#%d review of %q: %s"
	inspectReopen      = "#%d plan/reopen: plan %d %q reopened as the working draft"
	inspectTurnEnd     = "#%d turn %d ended %s"
	inspectProjection  = "projection: {active: %t, pending: %s}"
	inspectYes         = "yes"
	inspectNo          = "no"
)

// Texts of "planhost acp" (acpcmd.go).
const (
	usageACP = `Usage: planhost acp [-config FILE] [-sessions DIR] [-store file|postgres|URL] [-model scripted:FILE|openai] [-log FILE]

Runs planhost as an Agent Client Protocol (ACP) agent on stdin and stdout,
for editors such as Zed: JSON-RPC messages only on stdout, diagnostics on
stderr (or -log FILE). Each ACP session is a session file in -sessions; its
workspace is the cwd the editor sends. Without -config the demo's deployment
(plan mode with its guidance) is used. The model flags are those of run.
See docs/acp.md.

Flags:
`
	flagLogHelp        = "append diagnostics to this `file` instead of stderr"
	flagLogLevelHelp   = "diagnostics `level`: debug, info, warn or error"
	acpDefaultDeployID = "planhost acp (built-in deployment)"
)

// lineCommentsNeeded refuses empty comments of Approve with comments: an
// empty line never approves.
const lineCommentsNeeded = "  · an empty line approves nothing: write your comments for the model"
