package main

import "errors"

// errValidateOnly is the answer of the model validate composes; it is
// never asked, because validate runs no session.
var errValidateOnly = errors.New("validate runs no session")

// Usage texts, printed for -h and for usage errors.
const (
	usageMain = `planhost runs an agent host with the plan-mode plugin.

Usage:
  planhost demo                    play a scripted plan-mode session on a sample workspace
  planhost run -config FILE        an interactive session in the terminal
  planhost validate -config FILE   check a deployment file and build the host without running it
  planhost inspect SESSION         show a session's plan-mode timeline
  planhost export SESSION          write a session (file or PostgreSQL) as a JSONL session file
  planhost import FILE.jsonl       load a JSONL session file into a store (PostgreSQL or a sessions directory)
  planhost acp                     serve the Agent Client Protocol on stdin/stdout (editors)

Run "planhost COMMAND -h" for a command's flags.
Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error.
`
	usageDemo = `Usage: planhost demo [-scene plan|entry|companions] [-lang en|zh] [-verbose] [-keep]

Plays a scripted plan-mode session with an embedded deployment, a scripted
model and a scripted user, on a sample workspace copied to a temporary
directory, shown as the line console shows a session. The scene "plan" (the
default): the user enters plan mode with a request, the model explores with
read-only tools and presents a plan, the user asks for one revision and then
approves, and the model carries the plan out. "entry": the model asks to
plan first (plan-entry, plan-file, plan-review, plan-gate). "companions":
tracked plan steps and the agent's todo list, over two sessions. The
temporary directory is removed at the end; with -keep it stays, with the
session files (their paths are printed at the end) and the changed
workspace.

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
plan you answer with the key in brackets (in a terminal, or the arrows and
enter): [a] Approve, [s] Save plan and stop, [k] Keep planning (then write
feedback), [e] Edit (in $VISUAL or $EDITOR; typed over pipes), [d] Dismiss;
with plan-review also [w] Approve with comments, [c] Approve and clear and
[x] Abandon; with -plan-model, [m] carries the plan out with that model. In
a terminal [v] shows or hides a long diff of a revised plan.
-verbose also shows the host's internal lines. Ctrl-C cancels the running
turn; a second Ctrl-C exits. The status line shows the mode, with an arrow
when a switch waits for the next step.
When stdin or stdout is not a terminal, planhost reads one input per line
and answers as lines: the key of an answer, then the line of text that k
and w ask for, in the language of -lang or the environment.

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
	usageInspect = `Usage: planhost inspect [-json] [-html OUT] [-lang en|zh] [-store file|postgres|URL] SESSION

Prints a session's transcript as planhost shows it, each item with the
position of the event it shows (#N), its internal lines included: plan-mode
switches, request headers (and the prompt sections they carried), /plan
commands, plan reviews and their outcomes, the companions' boxes; then the
plan-mode state the log ends with. SESSION is a session file (FILE.jsonl),
or with -store postgres (the URL in DATABASE_URL) or -store postgres://... a
session ID in that database. The session is only read.

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
	flagKeepHelp        = "keep the demo directory (session files and changed workspace) after the demo; it is removed by default"
	flagSceneHelp       = "the scene to play: plan (the user enters plan mode with /plan), entry (the model asks to plan first; the companion plugins) or companions (tracked steps and the todo list)"
	flagStreamHelp      = "stream answers from -model openai (text appears as it arrives; an endpoint that refuses gets one request)"
	flagLangHelp        = "`language` of what planhost shows: en or zh (default: from LC_ALL, LC_MESSAGES, LANG)"
	flagSourceStoreHelp = "where the session lives: file (SESSION is a session file), postgres (the database in " +
		"$DATABASE_URL) or a postgres:// `URL` (SESSION is its ID)"
	flagContinueHelp = "resume the session changed last in the store in use (-store): the newest file in -sessions, or the database's"
	flagVerboseHelp  = "also show the internal lines (request headers, pending switches, results written for the model)"
)

// Errors and notes printed by the program.
const (
	errUnknownCommand     = "planhost: unknown command %q\n\n"
	errNoCommand          = "planhost: no command given\n\n"
	errExtraArgs          = "planhost %s: unexpected arguments: %q\n"
	errConfigAsArg        = "planhost %s: unexpected argument %q; a deployment file is given with -config: planhost %s -config %s\n"
	errNeedConfig         = "planhost %s: -config FILE is required\n"
	errNeedFile           = "planhost inspect: SESSION is required: a session file, or a session ID with -store\n"
	errPrefix             = "planhost %s: %v\n"
	errContinueAndSession = "-continue and -session both name a session; use one"
)

// Validate texts.
const (
	lineValid      = "%s: ok (plugins: %s)"
	lineGraphError = "%s: host: %v"
)

// Texts of "planhost acp" (acpcmd.go).
const (
	usageACP = `Usage: planhost acp [-config FILE] [-sessions DIR] [-store file|postgres|URL] [-model scripted:FILE|openai] [-lang en|zh] [-log FILE]

Runs planhost as an Agent Client Protocol (ACP) agent on stdin and stdout,
for editors such as Zed: JSON-RPC messages only on stdout, diagnostics on
stderr (or -log FILE). Each ACP session is a session file in -sessions; its
workspace is the cwd the editor sends. Without -config the demo's deployment
(plan mode with its guidance) is used. The model flags are those of run.
See docs/acp.md.

Flags:
`
	flagLogHelp      = "append diagnostics to this `file` instead of stderr"
	flagLogLevelHelp = "diagnostics `level`: debug, info, warn or error"
)
