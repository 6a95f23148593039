package planask

// The tool, as the model reads it.
const (
	// ToolDescription is the description of [ToolName].
	ToolDescription = "Ask the user one to four clarifying questions while you plan, when the answer changes the " +
		"plan and you cannot find it by reading: a choice between approaches, a preference, a missing requirement. " +
		"Each question has a short header (at most 40 bytes), the question, and 2 to 6 options, each a label and a " +
		"description of what it means; set multiSelect when several options may apply. Do not add an \"Other\" " +
		"option: the user can always answer in their own words (\"other\" in the result), and it wins over the " +
		"options. Never word a question as the plan review (its header, question or answers, such as \"Approve\"): " +
		"such a question is refused, and to put a plan to the user you call exit_plan_mode. " +
		"The user may skip a question or decline all: then state your assumption and go on. Ask only " +
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

// textLookalike refuses a question worded as the plan review (field, the
// review's phrase).
const textLookalike = "the %s reads as the plan review's own words (%q): a question from you must never look like " +
	"the review, since it approves nothing. Word it as your own question: name the choice itself (\"Use the " +
	"new schema\", not \"Approve\"), and to put a plan to the user, call exit_plan_mode instead"

// reviewLabels are the plan review's labels and headers, in English and
// Chinese, as the exit tool, the review companions and the front ends'
// catalog (internal/present) word them; a header, question, label or
// description that is one of them after normalisation is refused. "%s"
// stands for any text. A test in internal/present checks that they cover
// the catalog.
var reviewLabels = []string{
	// Headers and titles.
	"Plan review: %s", "计划审阅：%s",
	"Plan approved", "Plan approved.", "计划已批准",
	// The review's answers, by role.
	"Approve", "批准",
	"Keep planning", "继续计划",
	"Approve with comments", "附意见批准",
	"Approve and clear", "批准并清空上下文",
	"Abandon", "放弃",
	"Save plan and stop", "保存计划并停止",
	"Approve and execute with %s", "批准并用 %s 执行",
}

// reviewSentences are the plan review's questions and the descriptions
// of its answers; a header, question, label or description that is one
// of them, or ends with one (as an ACP option name "label: description"
// does), after normalisation, is refused.
var reviewSentences = []string{
	// Questions.
	"Approve this plan and leave plan mode?",
	"The plan changed while you were reviewing it, so your answer was not taken. " +
		"Review the plan as it is now (what changed is shown): approve it and leave plan mode?",
	"The model presents this plan. What now?", "模型提交了这份计划。接下来？",
	"The plan changed while you were reviewing it, so your answer was not taken. " +
		"What changed is shown; review the plan as it is now. What now?",
	"你审阅期间计划被改动了，所以你的回答没有被采纳。下面显示了改动之处；请审阅现在的计划。接下来？",
	// Descriptions of the answers.
	"Leave plan mode and start working on this plan.",
	"Stay in plan mode; type what to change and the model revises the plan.",
	"leave plan mode and carry the plan out", "退出计划模式并执行计划",
	"leave plan mode and carry out the plan",
	"stay in plan mode and tell the model what to change", "留在计划模式，告诉模型要改什么",
	"stay in plan mode and let the model revise the plan on its own", "留在计划模式，由模型自行修改计划",
	"carry the plan out, with your comments for the model", "执行计划，并把你的意见交给模型",
	"carry the plan out on a fresh context holding only the plan", "在只含计划的新上下文中执行计划",
	"drop the plan and leave plan mode", "丢弃计划并退出计划模式",
	"keep the plan, leave plan mode, carry nothing out", "保留计划，退出计划模式，不执行任何步骤",
	"leave plan mode and carry the plan out with this model", "退出计划模式，用这个模型执行计划",
	"Leave plan mode and carry out the plan with this model.",
	"open the plan in your editor, then approve or send it back", "在编辑器中打开计划，然后批准或退回",
	"close the review and talk to the model instead", "关闭审阅，改为直接和模型对话",
	"Approve, and give the model comments to follow (type them with this choice).",
	"Approve, and let the model start the work from the plan alone, with the earlier conversation cleared.",
	"Leave plan mode and drop this plan: nothing of it is carried out.",
	"Keep the plan and leave plan mode without carrying it out; nothing is approved.",
}
