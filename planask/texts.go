package planask

// The tool, as the model reads it.
const (
	// ToolDescription is the description of [ToolName].
	ToolDescription = "Ask the user one to four clarifying questions while you plan, when the answer changes the " +
		"plan and you cannot find it by reading: a choice between approaches, a preference, a missing requirement. " +
		"Each question has a short header (at most 40 bytes), the question, and 2 to 6 options, each a label and a " +
		"description of what it means; set multiSelect when several options may apply. Do not add an \"Other\" " +
		"option: the user can always answer in their own words (\"other\" in the result), and it wins over the " +
		"options. The user may skip a question or decline all: then state your assumption and go on. Ask only " +
		"what matters, and all you need at once rather than one question after another. The result is JSON: " +
		"\"outcome\" (answered, declined or policy), \"answers\" (per question: selected labels, \"other\", " +
		"\"skipped\") and \"message\", which says how to go on."
	// InputSchema is the JSON Schema of the tool's input.
	InputSchema = `{"type":"object","properties":{"questions":{"type":"array","minItems":1,"maxItems":4,` +
		`"description":"The questions, in the order to ask them.","items":{"type":"object","properties":{` +
		`"header":{"type":"string","maxLength":40,"description":"A short title, like \"Storage\" or \"Auth method\"."},` +
		`"question":{"type":"string","description":"The question, complete and clear on its own."},` +
		`"multiSelect":{"type":"boolean","description":"true when the user may pick several options."},` +
		`"options":{"type":"array","minItems":2,"maxItems":6,"items":{"type":"object","properties":{` +
		`"label":{"type":"string","maxLength":80,"description":"The option's short name, unique within the question."},` +
		`"description":{"type":"string","description":"What choosing it means for the plan."}},` +
		`"required":["label","description"],"additionalProperties":false}}},` +
		`"required":["header","question","options"],"additionalProperties":false}}},` +
		`"required":["questions"],"additionalProperties":false}`
	// ResultSchema is the JSON Schema of the tool's result.
	ResultSchema = `{"type":"object","properties":{` +
		`"outcome":{"type":"string","enum":["answered","declined","policy"]},` +
		`"policy":{"type":"string","enum":["decline","first-option"],"description":"the deployment policy that answered for an absent user"},` +
		`"answers":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"header":{"type":"string"},` +
		`"question":{"type":"string"},"selected":{"type":"array","items":{"type":"string"}},` +
		`"other":{"type":"string","description":"the user's own answer; it wins over the options"},` +
		`"skipped":{"type":"boolean"}},"required":["id","header","question"]}},` +
		`"message":{"type":"string","description":"how to go on"}},"required":["outcome","answers","message"]}`
)

// otherLabel is the label of the free-text answer every question has; the
// model may not offer it as an option.
const otherLabel = "Other"

// Tool results, model-facing.
const (
	textAnswered = "The user answered (see \"answers\"; where they wrote their own answer in \"other\", it wins " +
		"over the options). Plan with these answers; for a skipped question, state your assumption."
	textDeclined = "The user declined to answer. State your assumptions in the plan and go on; do not ask the " +
		"same questions again."
	textPolicyDecline = "No user is attached to answer, and the deployment's headless policy is \"decline\": " +
		"nobody answered. State your assumptions in the plan and go on."
	textPolicyFirstOption = "No user is attached to answer, so the deployment's headless policy (\"first-option\") " +
		"took each question's first option. These are not the user's choices: state them as assumptions in the plan."
)

// Tool errors, model-facing; the host shows each as "Error: <text>".
const (
	textNoAgent         = "ask_user needs a calling agent with a session"
	textOutsidePlanMode = "ask_user works only in plan mode here: decide from what you know and state your " +
		"assumptions, or ask in your reply"
	textReloaded  = "the plan-ask plugin was reloaded while the questions were open; ask again if you still need to"
	textDelegated = "a delegated agent cannot ask the user: decide from what you know, and report your assumptions back"
	textAskFailed = "the questions could not be put to the user"
	textLogFailed = "the questions were not asked: logging %s failed: %v"
	textTurnLimit = "this turn already asked %d questions, and %d more would pass the limit of %d per turn: go on " +
		"with what you know and state your assumptions"
	textBadAnswer = "the answer to question %q could not be read (an unknown option, several options for a " +
		"single-choice question, or a repeated answer); nothing was taken from it: ask again"
)

// Input problems, model-facing.
const (
	textBadInput = "the input must be {\"questions\": [...]} with 1 to 4 questions, each with \"header\", " +
		"\"question\" and 2 to 6 \"options\" ({\"label\", \"description\"}), and optionally \"multiSelect\"; " +
		"nothing was asked"
	textNotObject        = "the input is not a JSON object"
	textNotObjectPart    = "is not a JSON object"
	textUnknownTop       = "unknown fields %s; the only field is \"questions\""
	textNoQuestions      = "\"questions\" is empty: ask at least one question"
	textTooManyQuestions = "%d questions, more than the %d one call may ask: ask the ones that matter most"
	textQuestionN        = "question %d"
	textOptionN          = "option %d"
	textUnknownQuestion  = "unknown fields %s; a question has header, question, options and multiSelect"
	textUnknownOption    = "unknown fields %s; an option has label and description"
	textNotBool          = "%q is not true or false"
	textBlank            = "%q is blank"
	textTooLong          = "%q is %d bytes, more than %d"
	textControl          = "%q holds control characters"
	textOptionCount      = "%d options; a question offers %d to %d"
	textDuplicateLabel   = "option %d has the label %q of option %d; labels must differ"
	textOtherLabel       = "do not offer an \"Other\" option: every question lets the user answer in their own words"
)

// Errors and config problems.
const (
	problemAskPayload    = "want {\"callId\": non-empty string, \"questions\": 1 to 4 questions as ask_user takes them}"
	problemAnswerPayload = "want {\"callId\": non-empty string, \"outcome\": answered, declined, policy or failed, " +
		"\"policy\": decline or first-option with policy, \"answers\": [{\"id\", ...}]}"
	problemHeadless = "must be decline or first-option, got %q"
)
