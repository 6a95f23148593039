// Package plansteps is the "plan-steps" companion plugin: an approved plan
// is executed step by step, with verification, step changes the user
// approves, and a closing summary.
//
// The exit tool (exit_plan_mode) takes an optional "steps" list through the
// plan-mode plugin's exit seam ([planmode.ExitExtension]); without it the
// plan's first ordered Markdown list gives the steps. On approval the plugin
// logs [EventSteps], which starts the execution of that plan and replaces
// any earlier one. The tools [StatusToolName], [StepCompleteToolName],
// [ModifyToolName] and [CompleteToolName] read and advance it, each change
// logged as a log-only event, and while a plan is executing the section
// [SectionName] shows its progress to the model.
//
// All state is a fold of the session log ([Apply], [Fold]): resume, fork and
// compaction keep it. The plugin keeps each session's fold current through a
// subscription, one event at a time, never refolding the log.
//
// The plugin needs plan-mode: the deployment loader refuses it alone.
package plansteps

// Names the plugin registers with the host.
const (
	// PluginName is the plugin's key under plugins: in the deployment file
	// and the name of its exit extension and payload check.
	PluginName = "plan-steps"
	// EventSteps records an approved plan's steps: execution starts. Its
	// payload is [StepsPayload].
	EventSteps = "plan/steps"
	// EventStepCompleted records a finished step. Payload:
	// [StepCompletedPayload].
	EventStepCompleted = "plan/step-completed"
	// EventStepModified records a step change the user approved. Payload:
	// [StepModifiedPayload].
	EventStepModified = "plan/step-modified"
	// EventCompleted records the end of the execution. Payload:
	// [CompletedPayload].
	EventCompleted = "plan/completed"

	// SectionName is the system-prompt section that shows the progress.
	SectionName = "plan:progress"
	// SectionOrder places [SectionName] among the sections.
	SectionOrder = 53

	// StatusToolName reports the mode, goal, plan and steps.
	StatusToolName = "plan_status"
	// StepCompleteToolName marks a step completed.
	StepCompleteToolName = "plan_step_complete"
	// ModifyToolName asks the user to change a step.
	ModifyToolName = "plan_modify"
	// CompleteToolName ends the execution.
	CompleteToolName = "plan_complete"

	// ModifyPurpose is the Purpose of a step-change request, a
	// [host.AskConsent].
	ModifyPurpose = "plan-modify"
	// ModifyQuestionID is the ID of its one question.
	ModifyQuestionID = "plan-modify"
	// ModifyApprove is the option that approves the change.
	ModifyApprove = "Approve change"
	// ModifyKeep is the option that keeps the step as it is.
	ModifyKeep = "Keep the step"

	// FieldStep and the Field constants after it are the Keys of the
	// step-change question's fields, in that order; the files (joined by
	// ", ") and the verification only when set.
	FieldStep               = "step"                // the step's number
	FieldPlan               = "plan"                // the plan's title
	FieldReason             = "reason"              // the model's reason
	FieldBefore             = "before"              // the description before the change
	FieldBeforeFiles        = "before-files"        // the files before
	FieldBeforeVerification = "before-verification" // the verification before
	FieldAfter              = "after"               // the description after the change
	FieldAfterFiles         = "after-files"         // the files after
	FieldAfterVerification  = "after-verification"  // the verification after

	// StepsArg is the exit tool's extra input property.
	StepsArg = "steps"
	// SourceSteps and SourceMarkdown say where the steps came from.
	SourceSteps    = "steps"
	SourceMarkdown = "markdown"
)

// The outcomes of a plan_modify call: the tool reports each with
// [host.SetOutcome], so the host logs it in the call's "tool/result" and a
// front end says how the call ended from it, never from the result text.
const (
	// ModifyChanged: the user approved and the step changed.
	ModifyChanged = "changed"
	// ModifyDeclined: the user did not approve; the step stays as it is.
	ModifyDeclined = "declined"
	// ModifyDismissed: the user dismissed the question to speak instead.
	ModifyDismissed = "dismissed"
	// ModifyFailed: the question closed before the user answered (the
	// turn was cancelled, the plugin reloaded) or could not be put.
	ModifyFailed = "failed"
	// ModifyRefused: the call failed without asking the user (a bad
	// input, no execution, no channel), or the plan changed meanwhile.
	ModifyRefused = "refused"
)

// Limits.
const (
	// MaxSteps is the most steps a plan has.
	MaxSteps = 100
	// MaxTextSize bounds a description, a verification, a reason and a
	// deviation, in bytes (4 KiB).
	MaxTextSize = 4 << 10
	// MaxResultSize bounds a verification result and a summary, in bytes
	// (64 KiB).
	MaxResultSize = 64 << 10
	// MaxFiles bounds the files of a step.
	MaxFiles = 100
	// MaxFileSize bounds one file name, in bytes.
	MaxFileSize = 1 << 10
	// MaxTitleSize bounds a plan title, in bytes.
	MaxTitleSize = 1 << 10
)

// Step is one step of a plan.
type Step struct {
	// ID numbers the step from 1, in plan order.
	ID int `json:"id"`
	// Description says what the step does.
	Description string `json:"description"`
	// Files are the files the step touches.
	Files []string `json:"files,omitempty"`
	// DependsOn are earlier steps that must be completed first.
	DependsOn []int `json:"depends_on,omitempty"`
	// Verification says how to check the step; when set, completing the
	// step needs a verification result.
	Verification string `json:"verification,omitempty"`
}

// StepsPayload is the payload of [EventSteps].
type StepsPayload struct {
	// Title is the plan's title (its first heading).
	Title string `json:"title"`
	// Source is [SourceSteps] or [SourceMarkdown].
	Source string `json:"source"`
	// Steps are the plan's steps, numbered from 1; possibly none.
	Steps []Step `json:"steps"`
}

// StepCompletedPayload is the payload of [EventStepCompleted].
type StepCompletedPayload struct {
	// Step is the completed step's number.
	Step int `json:"step"`
	// VerificationResult is what checking the step showed, as the model
	// reported it.
	VerificationResult string `json:"verification_result,omitempty"`
}

// StepModifiedPayload is the payload of [EventStepModified].
type StepModifiedPayload struct {
	// Step is the changed step's number.
	Step int `json:"step"`
	// Reason is why the model asked for the change.
	Reason string `json:"reason"`
	// Before is the step as it was.
	Before Step `json:"before"`
	// After is the step as the user approved it.
	After Step `json:"after"`
}

// Deviation is a change from the approved plan, reported at completion.
type Deviation struct {
	// StepID names the step the deviation concerns; 0 for none.
	StepID int `json:"step_id,omitempty"`
	// Description says what changed and why.
	Description string `json:"description"`
}

// CompletedPayload is the payload of [EventCompleted].
type CompletedPayload struct {
	// Summary is what was achieved.
	Summary string `json:"summary"`
	// Deviations are the changes from the approved plan; every step not
	// completed is named in one.
	Deviations []Deviation `json:"deviations,omitempty"`
}
