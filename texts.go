package planmode

// Model-facing notices of "/plan reopen", recorded with the plugin's source
// after the plan-mode notice (or sent into the running turn).
const (
	// noticeReopened precedes the reopened plan, verbatim; %d is its number.
	noticeReopened = "The user has reopened plan %d of this session as your working draft. Revise it as the " +
		"user asks and present the revised plan with exit_plan_mode; the user will see what changed from this draft. " +
		"The draft:\n\n"
	// noticeReopenedFile: the draft is in the plan file; %d is its number.
	noticeReopenedFile = "The user has reopened plan %d of this session as your working draft: the plan file now " +
		"holds it. Revise it as the user asks and present the revised plan with exit_plan_mode; the user will see " +
		"what changed from this draft."
)

// Model-facing notices. The plugin records one as a "user/message" with a
// plugin source when a user's change lands and the last request header
// described the other mode.
const (
	noticeEntered = "The user has switched this session into plan mode. " +
		"Follow the plan-mode guidance in the system prompt from now on."
	noticeLeft = "The user has switched this session back to the default mode. " +
		"Plan-mode guidance no longer applies; continue with the task as usual."
)

// Error texts shown to host developers, users or the model. The error values
// built from them live in errors.go.
const (
	textNoAgent    = "no agent: plan mode belongs to an agent's session"
	textNotRunning = "the plan-mode service is not running"
	textStarted    = "the plan-mode service is already running"
	textBadPayload = "malformed payload"
	textBadConfig  = "invalid config"

	textMissingDependency = "missing host registry"
	textBadExtension      = "bad exit extension"
	textAlreadyPlanMode   = "already in plan mode or entering it"
	textNoSessionID       = "the agent's session has no ID; the plan-mode controller keeps its state by session ID"
)

// Payload-check problems; %s is the offending JSON value.
const (
	problemReopenNotObject = "payload %s is not a JSON object with number, digest and plan"
	problemReopenNumber    = "plan number %d is not positive"
	problemReopenSize      = "the plan is %d bytes, more than the %d-byte limit"
	problemReopenDigest    = "the digest is not the plan's"
	// The problems of plan/mode and plan/cancel: the last %s says what a
	// valid payload or value is (want...).
	problemEmpty     = "payload is empty; want %s"
	problemNotObject = "payload %s is not a JSON object; want %s"
	problemMissing   = "%s is missing; want %s"
	problemBadValue  = "%s is %s; want %s"
	wantMode         = `{"active": true} or {"active": false}`
	wantBool         = "true or false"
	wantCancel       = `{"cancelled": "active"} or {"cancelled": "inactive"}`
	wantSelection    = `"active" or "inactive"`
)

// Config problems, reported by the loader as "FILE:LINE:COL: plan-mode:
// KEY: PROBLEM". %s is a kind of YAML value such as "a number".
const (
	problemNotString     = "must be a string, got %s"
	problemNotStringHint = "must be a string, got %s (quote the text, or use a block scalar: section: |)"
	problemRequired      = "is required: " + problemRequiredWhat
	problemRequiredWhat  = "the guidance text shown to the model while plan mode is active"
	problemBlank         = "must not be blank: give the guidance text shown to the model while plan mode is active (white space and invisible characters such as zero-width spaces alone are blank)"
	problemControl       = "contains the control character %U at character %d; only tab and line break may appear, whether written as is or as an escape such as \\0"
	problemTooLong       = "must be at most %d characters, got %d"
	problemInvalidText   = "is not a valid section text"
)

// Warnings logged through the host's logger.
const (
	warnAppendFailed  = "plan-mode: could not append the pending plan/mode selection; it stays pending for a later step"
	warnNoticeFailed  = "plan-mode: could not append the plan-mode notice"
	warnSectionFailed = "plan-mode: cannot serve the agent's session, so the plan:policy section is left out " +
		"(logged once per run)"
	warnPreStepFailed = "plan-mode: cannot serve the agent's session, so its pending selection is not applied " +
		"(logged once per run)"
	warnExitLost = "plan-mode: the result of an approved exit_plan_mode call could not be written to the log, " +
		"so the approval is withdrawn and plan mode stays on"
	warnExitUnrecorded = "plan-mode: the log holds no approved result of the exit_plan_mode call, " +
		"so the approval is withdrawn and plan mode stays on"
	warnExitNotDurable = "plan-mode: the log holding the approval of an exit_plan_mode call could not be made " +
		"durable, so the approval is withdrawn and plan mode stays on"
	warnCancelFailed = "plan-mode: could not append the plan/cancel marker of a withdrawn approval"
)

// ---- The exit tool and the /plan command (tool_exit.go, command_plan.go) ----

// Descriptions the host shows: the exit tool's to the model in every
// request, the command's in help listings.
const (
	exitToolDescription = "Present your plan to the user for review and, once they approve it, leave plan mode. " +
		"Call it only while the session is in plan mode, after exploring, with the whole plan as Markdown " +
		"whose first line is a level-1 heading naming it (\"# Title\"). The user either approves, and the " +
		"result is {\"approved\":true}, or asks you to keep planning, and the call fails with their feedback: " +
		"revise the plan and call again."
	commandDescription = "Switch plan mode: /plan enters it, /plan off leaves it, /plan reopen [N] enters it with plan N (default: the last approved) as the draft, /plan <message> enters it and sends the message"
)

// The plan review the exit tool puts to the user (a request of kind
// [host.AskReview] with the Purpose and one question of ID "plan-review",
// whose options carry their roles), and the cards that show it.
const (
	reviewPurpose      = "plan-review"
	reviewQuestionID   = "plan-review"
	reviewApprove      = "Approve"
	reviewKeepPlanning = "Keep planning"
	reviewHeader       = "Plan review"
	reviewQuestion     = "Approve this plan and leave plan mode?"
	// reviewChangedQuestion asks again about a plan that changed while
	// the user reviewed it.
	reviewChangedQuestion = "The plan changed while you were reviewing it, so your answer was not taken. " +
		"Review the plan as it is now (what changed is shown): approve it and leave plan mode?"
	reviewApproveDetail   = "Leave plan mode and start working on this plan."
	reviewKeepDetail      = "Stay in plan mode; type what to change and the model revises the plan."
	cardTitleDefault      = "Plan"
	cardTitleApproved     = "Plan approved"
	cardTitleKeepPlanning = "Keep planning"
	cardTitleFailed       = "Plan not approved"
	cardBodyApproved      = "Plan mode ends before the next model request; the plan is the brief from now on."
	cardBodyNoFeedback    = "The user gave no feedback."
	cardTitleAbandoned    = "Plan abandoned"
	cardBodyAbandoned     = "Plan mode ends before the next model request; none of the plan will be carried out."
)

// Model-facing tool errors of exit_plan_mode; the host shows each as
// "Error: <text>".
const (
	textExitNoAgent = "exit_plan_mode needs a calling agent: it reviews the plan of an agent's session, " +
		"and this call came from no agent"
	textExitNotPlanMode = "this session is not in plan mode, so there is no plan to present: " +
		"do not call exit_plan_mode; carry on with the task"
	textExitBadInput  = "the input must be a JSON object with one string field \"plan\" holding the plan as Markdown"
	textExitNoHeading = "the plan must begin with a level-1 Markdown heading naming it, such as " +
		"\"# Add retries to the uploader\" (one #, a space, then the title, on the plan's first line); " +
		"add the heading and call exit_plan_mode again"
	textExitNoChannel = "this host has no way to put the plan to the user for review, so exit_plan_mode cannot " +
		"leave plan mode: give the user the plan in your answer and ask them to switch back to the default mode " +
		"themselves (for example with /plan off)"
	textExitDecided = "an earlier exit_plan_mode call already ended the plan review (the user approved or abandoned " +
		"that plan), so plan mode ends before your next request. This plan was not shown to the user: do not present " +
		"another plan now; go on as the result of the earlier call says"
	textExitReviewOpen = "another exit_plan_mode call of this session is still under review; present one plan at a " +
		"time and wait for its result before calling exit_plan_mode again"
	textExitTooLarge = "the plan is %d bytes, more than the %d-byte (256 KiB) limit: shorten it and call exit_plan_mode again"
	// textKeepPlanning is the generic keep-planning failure, when the user
	// gave no feedback.
	textKeepPlanning = "the user did not approve the plan and wants you to keep planning: " +
		"revise the plan and present it again with exit_plan_mode"
	// textKeepPlanningFeedback precedes the user's feedback, verbatim.
	textKeepPlanningFeedback = "the user did not approve the plan and wants you to keep planning: " +
		"revise the plan to address their feedback and present it again with exit_plan_mode. The user's feedback:\n\n"
	// textFeedbackTooLarge replaces feedback over maxFeedbackSize; %d are
	// the feedback's size and the limit, in bytes.
	textFeedbackTooLarge = "the user did not approve the plan and wants you to keep planning, but their feedback " +
		"is %d bytes, more than the %d-byte (256 KiB) limit, so it is left out here: ask the user to give the " +
		"feedback again in a shorter form, then revise the plan and present it again with exit_plan_mode"
	textReviewDismissed = "the user dismissed the plan review to speak instead: stay in plan mode, stop here " +
		"and wait for the user's message; do not present the plan again until they reply"
	textReviewReloaded = "the plan-mode service was reloaded while the plan was under review; present the plan again"
	textReviewFailed   = "the plan review failed"
	textPlanChanging   = "the plan kept changing while the user reviewed it, so no answer was about the plan as it " +
		"stands and nothing was approved; plan mode stays on: make sure nothing else writes the plan, then present it again"
	textEditNotTaken = "the user edited the plan during the review and approved the edit, but this host cannot " +
		"approve an edited plan, so nothing was approved; plan mode stays on: ask the user what to change, " +
		"revise the plan and present it again"
	// textEditTooLarge: %d are the edited plan's size and the limit.
	textEditTooLarge = "the user's edit of the plan is %d bytes, more than the %d-byte (256 KiB) limit, so nothing " +
		"was approved; plan mode stays on: ask the user to shorten the plan, then present it again"
	// textExitNotRecorded is the result of an approved call whose result
	// could not be written to the log; %s is the write's error.
	textExitNotRecorded = "the user's answer to the plan review could not be recorded in the session log (%s), " +
		"so it does not count: the plan is not approved and plan mode stays on. Tell the user, then present " +
		"the plan again with exit_plan_mode"
)

// Replies and errors of the /plan command, shown to the user.
const (
	replyEntered         = "Plan mode is on."
	replyEntering        = "Plan mode is on from the next step of the running turn."
	replyLeft            = "Plan mode is off."
	replyLeaving         = "Plan mode ends from the next step of the running turn."
	replyEntryCancelled  = "The switch to plan mode was cancelled before it reached the model; plan mode stays off."
	replyExitCancelled   = "The switch back to the default mode was cancelled before it reached the model; plan mode stays on."
	replyAlreadyInactive = "Plan mode is already off."
	replyAlreadyActive   = "Plan mode is already on."

	// replyReopened and replyReopening: %d is the plan's number.
	replyReopened  = "Plan mode is on with plan %d reopened as the working draft; the next review shows what changed from it."
	replyReopening = "Plan mode is on from the next step of the running turn, with plan %d reopened as the working draft; the next review shows what changed from it."

	// The /plan command's errors; front ends and hosts put "/plan" before
	// them, so they do not start with it.
	// textNoSuchPlan: %s is the argument, %d how many plans the session has.
	textNoSuchPlan = "reopen %s: no such plan; reopen takes one plan number, and /plans lists the %d plans of this session"
	// textPlanNotLogged: %d is the plan's number.
	textPlanNotLogged    = "no such plan: the log does not hold the text of plan %d (it was presented from a file, without a text in the call or its result)"
	textNoApprovedPlan   = "reopen: this session has no approved plan; name one with /plan reopen N (/plans lists them)"
	textReopenWithImages = "reopen takes no attachments: send the images once plan mode is on"
	textReopenFailed     = "reopen could not record the reopened plan"

	textOffWithImages = "off takes no attachments: send the images with /plan <message> or as an ordinary message"
	textSteerFailed   = "plan mode was selected, but the message could not be sent"
)
