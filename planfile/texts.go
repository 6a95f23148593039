package planfile

import "github.com/dshgo/planmode/internal/exitresult"

// Error texts; the error values built from them live in errors.go.
const (
	textUnsafe        = "unsafe plan file"
	textSwapped       = "the plan file was replaced during the operation"
	textTooLarge      = "the plan is too large"
	textBadContent    = "the plan is not UTF-8 text without NUL bytes"
	textBadSession    = "session ID cannot name a plan directory"
	textUnsupported   = "this platform cannot keep the plan file safe"
	textNotAbsolute   = "must be an absolute path"
	textMaxBytesRange = "must be between 1024 (1 KiB) and 16777216 (16 MiB)"
)

// Config problems, reported by the loader as "FILE:LINE:COL: plan-file: KEY:
// PROBLEM".
const (
	whatDir = "the directory that holds one private plan directory per session (relative paths resolve against the deployment file's directory)"
)

// Descriptions and schemas of the tools, as the model reads them.
const (
	// ReadToolDescription is the description of [ReadToolName].
	ReadToolDescription = "Read this session's plan file: the plan you are drafting in plan mode (or the last one). " +
		"Works in any mode. The result is the file's content, or a note that there is no plan yet."
	// WriteToolDescription is the description of [WriteToolName].
	WriteToolDescription = "Replace the whole content of this session's plan file with plan, a Markdown document " +
		"whose first line is a level-1 heading naming it (\"# Title\"). Only while plan mode is on. Use it to draft " +
		"and revise your plan across turns; when it is ready, call exit_plan_mode without a plan to present the file."
	// ReadInputSchema is the JSON Schema of plan_read's input: no arguments.
	ReadInputSchema = `{"type":"object","properties":{},"additionalProperties":false}`
	// WriteInputSchema is the JSON Schema of plan_write's input.
	WriteInputSchema = `{"type":"object","properties":{"plan":{"type":"string",` +
		`"description":"The complete plan as Markdown; it replaces the file's content."}},` +
		`"required":["plan"],"additionalProperties":false}`
)

// Model-facing tool results and errors.
const (
	textReadEmpty     = "There is no plan yet: the plan file %s does not exist or is empty. Write one with plan_write while plan mode is on."
	textWritten       = "The plan file %s now holds your plan (%d bytes). Present it with exit_plan_mode when it is ready."
	textWriteInactive = "plan_write works only while plan mode is on: the plan file holds the plan you draft in plan mode; " +
		"the session is in the default mode, so carry on with the task instead"
	textNoAgent      = "this tool needs a calling agent: the plan file belongs to an agent's session"
	textBadInput     = "the input must be a JSON object with one string field \"plan\"; got %s"
	textBadReadInput = "plan_read takes no arguments; got %s"
	textNoPlanFile   = "you called exit_plan_mode without a plan, and the plan file %s holds none: write the plan with " +
		"plan_write (or pass it as plan) and call exit_plan_mode again"
	textFileError = "the plan file could not be used: %v"
	// textEditNotSaved: the user's edit could not be written to the file,
	// so the plan was not approved.
	textEditNotSaved = "the user edited the plan and approved it, but the edit could not be written to the plan file, " +
		"so nothing was approved; plan mode stays on: %v"
)

// Section text (plan:file), model-facing.
const (
	sectionIntro = "Plan file: %s\n" +
		"Draft your plan in this file with plan_write (it replaces the whole file) and read it back with plan_read. " +
		"It is the only file you may change while plan mode is on. When the plan is ready, call exit_plan_mode " +
		"without a plan: the user reviews the file's content, and may edit the plan before approving."
	sectionEmpty     = "The plan file holds no plan yet."
	sectionHasPlan   = "The plan file already holds a plan; read it with plan_read before you change it."
	sectionReturning = "You are back in plan mode, and the plan file still holds the plan from the previous planning " +
		"session. Read it with plan_read, then decide with the user whether to revise that plan or replace it with a " +
		"new one for the current task."
)

// titleDefault is the title of a plan without a heading.
const titleDefault = "Plan"

// Extra result fields of exit_plan_mode, and their schema.
const (
	// ResultEdited is true in the result of a review during which the user
	// edited the plan file.
	ResultEdited = "edited"
	// ResultPath holds the plan file's path in the result.
	ResultPath = "planFile"
	resultPlan = exitresult.Plan

	schemaEdited = `{"type":"boolean","description":"true when the user edited the plan in the review; plan then holds the approved text, now in the plan file"}`
	schemaPlan   = `{"type":"string","description":"the plan as the user left it: when they edited it, or when the call gave no plan (the plan file's text)"}`
	schemaPath   = `{"type":"string","description":"the plan file's path"}`
)

// Payload-check problems.
const (
	problemApprovedShape  = "want {\"title\": string, \"sha256\": 64 hex digits, \"content\": string}"
	problemApprovedDigest = "sha256 %q does not match the content's digest"
	problemShownDigest    = "shownSha256 %q is not a SHA-256 in lower-case hex"
	problemFileShape      = "want {\"session\": non-empty string}"
)

// Warnings.
const (
	warnCopyFailed = "plan-file: could not copy the parent session's plan file into the fork"
	warnMarkFailed = "plan-file: could not log which session holds the plan file"
	warnSeedFailed = "plan-file: could not create the empty plan file"
)
