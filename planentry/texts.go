package planentry

// The tool, as the model reads it.
const (
	// ToolDescription is the description of [ToolName].
	ToolDescription = "Ask the user to switch this session into plan mode, where you explore read-only and then " +
		"present a plan for approval before changing anything. Use it when a task is large or ambiguous enough " +
		"that the user should agree on an approach first. Give the goal (what the plan is for) and, optionally, " +
		"the scope (a directory or module to focus on). The user decides; plan mode starts with your next request " +
		"if they agree."
	// InputSchema is the JSON Schema of the tool's input.
	InputSchema = `{"type":"object","properties":{` +
		`"goal":{"type":"string","maxLength":4096,"description":"What the plan is for, in a sentence or two."},` +
		`"scope":{"type":"string","description":"Optional: the directory or module the planning focuses on."}},` +
		`"required":["goal"],"additionalProperties":false}`
)

// The consent question, as the user sees it.
const (
	// Purpose is the Purpose of the consent request, a
	// [host.AskConsent].
	Purpose = "plan-entry"
	// QuestionID is the ID of the one question.
	QuestionID = "plan-entry"
	// OptionEnter is the label of the option that consents.
	OptionEnter = "Enter plan mode"
	// OptionDecline is the label of the option that declines.
	OptionDecline = "Decline"
	// FieldGoal is the Key of the question's field holding the goal.
	FieldGoal = "goal"
	// FieldScope is the Key of the question's field holding the scope,
	// present when the model gave one.
	FieldScope = "scope"

	questionHeader  = "Plan mode"
	questionText    = "The assistant asks to plan before making changes. Switch to plan mode?"
	detailGoal      = "**Goal:** %s"
	detailScope     = "\n\n**Scope:** %s"
	optionEnterDesc = "Explore read-only and agree on a plan before anything changes."
	optionDeclDesc  = "Carry on in the default mode without a plan review."
)

// Tool results and errors, model-facing.
const (
	textEntered = "The user agreed: plan mode starts with your next request. Explore read-only, then present your " +
		"plan with exit_plan_mode."
	textDeclined = "The user declined to switch to plan mode. Carry on with the task in the default mode, and do " +
		"not ask again unless the user brings it up."
	textDeclinedWords = "The user did not agree to switch to plan mode and wrote instead:\n\n%s\n\nCarry on in the " +
		"default mode and take their words into account."
	textNoAgent     = "enter_plan_mode needs a calling agent: plan mode belongs to an agent's session"
	textAlready     = "this session is already in plan mode (or entering it with your next request): do not call enter_plan_mode; plan, then present the plan with exit_plan_mode"
	textBadInput    = "the input must be a JSON object with a string \"goal\" (at most 4096 bytes) and an optional string \"scope\"; %s"
	textBlankGoal   = "the goal is blank: say in a sentence or two what the plan is for"
	textGoalTooLong = "the goal is %d bytes, more than the 4096-byte limit: say it shorter"
	textNoChannel   = "the user cannot be asked from here (no question channel, or no user attached), so plan mode " +
		"cannot start without their consent: carry on in the default mode, or tell the user you would like to plan " +
		"first and let them switch (/plan)"
	textDelegated = "a delegated agent cannot ask the user to switch plan mode: carry on with your task, or report " +
		"back that you would like the work planned first"
	textDismissed = "the user dismissed the question to speak instead: stop here and wait for the user's message; " +
		"plan mode stays off"
	textReloaded  = "the plan-entry plugin was reloaded while the question was open; plan mode stays off; ask again if you still need it"
	textAskFailed = "the question to the user failed; plan mode stays off"
	textEnterFail = "plan mode could not be started: %v"
)

// The plan:goal section, model-facing.
const (
	sectionGoal  = "The goal of this plan (from your request to enter plan mode): %s"
	sectionScope = "\nFocus on: %s"
)

// Payload-check problem.
const problemGoalPayload = "want {\"goal\": non-blank string of at most 4096 bytes, \"scope\": optional string}"
