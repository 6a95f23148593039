package plansteps

// Tool descriptions the model reads in every request.
const (
	// StatusToolDescription is the description of [StatusToolName].
	StatusToolDescription = "Report where the work stands: the mode (plan or default), the goal, and the latest " +
		"approved plan with its title, every step with its status (completed, in_progress, pending) and the " +
		"current step. Works in any state."
	// StepCompleteToolDescription is the description of [StepCompleteToolName].
	StepCompleteToolDescription = "Mark a step of the approved plan completed, as soon as it is done. Work through " +
		"the steps in order: a step's dependencies must be completed first. When the step has a verification, " +
		"run it and pass what it showed as verification_result; a step with a verification cannot be completed " +
		"without one. Only while an approved plan is being executed."
	// ModifyToolDescription is the description of [ModifyToolName].
	ModifyToolDescription = "Propose a change to a step of the approved plan that is not completed yet, with the " +
		"reason. The user sees the step before and after and approves or refuses; only an approved change " +
		"takes effect. When the user refuses, the call fails with their words: follow them."
	// CompleteToolDescription is the description of [CompleteToolName].
	CompleteToolDescription = "Finish the approved plan with a summary of what was achieved. Every step must be " +
		"completed or named (by step_id) in deviations, which list the changes from the plan and why. This ends " +
		"the plan's execution."
)

// The plan:progress section, for the model.
const (
	sectionHead    = "An approved plan is being executed: %s (%d of %d steps completed).\n"
	sectionAfter   = " (after step %s)"
	sectionNext    = "Next step: %d. %s\n"
	sectionVerify  = "Verify it with: %s\n"
	sectionHowTo   = "When a step is done, call plan_step_complete; to change a step, call plan_modify; when all steps are done, call plan_complete.\n"
	sectionAllDone = "Every step is completed: call plan_complete with a summary.\n"
	sectionBlocked = "No step is ready: the remaining steps wait for others. Call plan_status, or plan_complete with deviations.\n"
	iconCompleted  = "✓"
	iconInProgress = "▶"
	iconPending    = "○"
)

// Values of plan_status.
const (
	modePlan         = "plan"
	modeDefault      = "default"
	stateExecuting   = "executing"
	stateCompleted   = "completed"
	statusCompleted  = "completed"
	statusInProgress = "in_progress"
	statusPending    = "pending"
)

// Tool results, for the model.
const (
	textStepDoneNext    = "Step %d is completed (%d of %d). Next: step %d, %s."
	textStepDoneAll     = "Step %d is completed, and with it every step: call plan_complete with a summary."
	textStepDoneBlocked = "Step %d is completed. No remaining step is ready; check plan_status."
	textModified        = "The user approved the change: step %d is now: %s"
	textCompleted       = "The plan is completed and its execution has ended."
)

// Model-facing tool errors; the host shows each as "Error: <text>".
const (
	textNoAgent           = "this tool works on an agent's session, and this call came from no agent"
	textBadInput          = "%s: bad input: %v"
	textFieldMissing      = "%s: %q is missing"
	textFieldBlank        = "%s: %q must not be blank"
	textTextTooLong       = "%q is %d bytes, more than %d"
	textResultTooLong     = "verification_result is %d bytes, more than %d: keep the relevant part"
	textTooManyDeviations = "%d deviations, more than %d"
	textBadDeviation      = "deviation %d needs a non-blank description of at most %d bytes"
	textDeviationStep     = "deviation %d names step %d, but the plan has steps 1 to %d"
	textNotExecuting      = "no approved plan is being executed: present a plan with exit_plan_mode and wait for the user's approval first (plan_status shows the state)"
	textNoSuchStep        = "there is no step %d: the plan has %d steps"
	textAlreadyCompleted  = "step %d is already completed"
	textDependencies      = "step %d depends on step(s) %s, which are not completed: complete them first"
	textNeedsVerification = "step %d has a verification (%s): run it and pass what it showed as verification_result"
	textStepsOpen         = "steps %s are neither completed nor named in deviations: complete them, or add a deviation with their step_id saying why not"
	textModifyCompleted   = "step %d is already completed and cannot be changed"
	textBadChange         = "the changed step is not valid: %v"
	textModifyNoChannel   = "this host cannot ask the user to approve a step change, so the step stays as it is: tell the user what you would change and why, and follow the approved plan meanwhile"
	textModifyDismissed   = "the user dismissed the step change to speak instead: stop here and wait for the user's message"
	textModifyReloaded    = "the plan-steps plugin was reloaded while the user was asked about the change; propose it again"
	textModifyFailed      = "the step change could not be put to the user"
	textModifyRefused     = "the user did not approve the change: the step stays as it is; follow the approved plan"
	// textModifyRefusedWords precedes the user's words, verbatim.
	textModifyRefusedWords = "the user did not approve the change; the step stays as it is. The user's words:\n\n"
	textModifyStale        = "the plan changed while the user was asked; check plan_status and propose the change again"
	textLogFailed          = "the plan's progress could not be logged"
	textMarkdownTooMany    = "the plan's numbered list has more than %d items, more steps than a plan may have: merge steps and present the plan again"

	textBadSteps          = "bad steps"
	textStepsNotList      = "\"steps\" must be a list of step objects"
	textTooManySteps      = "\"steps\" has %d steps, more than the %d allowed"
	textStep              = "step %d"
	textStepNotObject     = "is not a JSON object"
	textStepUnknown       = "unknown fields %s; a step has description, files, depends_on and verification"
	textStepBadID         = "\"id\" must be the step's position, %d (steps are numbered from 1 in list order)"
	textStepNoDescription = "\"description\" must be a non-blank string"
)

// Payload-check and step problems.
const (
	problemTooLong           = "%s is %d bytes, more than %d"
	problemSource            = "source is %q; want \"steps\" or \"markdown\""
	problemNoSteps           = "steps is missing"
	problemTooManySteps      = "%d steps, more than %d"
	problemStepID            = "id is %d; want %d (steps are numbered from 1 in order)"
	problemDescription       = "description is blank"
	problemTooManyFiles      = "%d files, more than %d"
	problemFile              = "file %q is blank or too long"
	problemDependsOn         = "depends_on names step %d; step %d may depend only on earlier steps, each once"
	problemStepNumber        = "step is %d; want 1 to 100"
	problemReason            = "reason is blank or too long"
	problemSummary           = "summary is blank or too long"
	problemTooManyDeviations = "%d deviations, more than %d"
	problemDeviation         = "a deviation has a bad step_id or a blank or too long description"
)

// The step-change question, for the user.
const (
	modifyHeader        = "Plan change"
	modifyQuestion      = "Change step %d of the approved plan?"
	modifyApproveDetail = "The step changes as shown; the model goes on with the new step."
	modifyKeepDetail    = "The step stays as approved; type why, and the model reads it."
	modifyDetailHead    = "**Step %d** of **%s**\n\n"
	modifyDetailReason  = "Reason: %s\n\n"
	modifyDetailBefore  = "Before:\n\n"
	modifyDetailAfter   = "\nAfter:\n\n"
	mdDescription       = "%s"
	mdFiles             = "Files: %s"
	mdDependsOn         = "After step %s"
	mdVerification      = "Verify: %s"
	stepsHeading        = "## Steps"
)
