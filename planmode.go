// Package planmode gives agent hosts a plan mode: a per-agent state, logged
// in the session, under which deployment-owned guidance is added to every
// model request as the system-prompt section "plan:policy". It is soft
// guidance: it never filters the tool catalog nor blocks a tool.
//
// The state is the last "plan/mode" event of the log ([FoldPlanMode]). A
// change selected while a turn is open waits in memory for the next accepted
// step ([Controller.Set]); one the log records (a completed "/plan", an
// approved exit) survives a restart ([Project]). The model presents its plan
// with exit_plan_mode, which companion plugins extend ([ExitExtension]); its
// failures and those of "/plan" are [*Error] values.
//
// Use [Module] with fx ([DeployPlugin] for the deployment loader), or call
// [New] and [Controller.Start] directly. docs/plan-mode.md is the guide for
// host authors.
package planmode

// Names the plugin registers with the host.
const (
	// PluginName names the plugin: its config key, fx module, pre-step
	// listener, payload check and the source of its notices.
	PluginName = "plan-mode"
	// EventPlanMode is the log-only event that records the plan-mode state.
	// Its payload is [ModePayload]; each event replaces the whole value.
	EventPlanMode = "plan/mode"
	// EventPlanCancel is the log-only marker [Controller.Set] appends when it
	// cancels a selection the log records ("/plan", an approved exit): it
	// withdraws every such selection before it. Payload: [CancelPayload].
	EventPlanCancel = "plan/cancel"
	// EventPlanReopen is the log-only event "/plan reopen" appends: the
	// plan reopened as the working draft. Payload: [ReopenPayload].
	EventPlanReopen = "plan/reopen"
	// SectionName is the system-prompt section that carries the configured
	// guidance while plan mode is active.
	SectionName = "plan:policy"
	// SectionOrder places [SectionName] among the prompt sections.
	SectionOrder = 50
	// ExitToolName is the tool the model calls to present its plan for
	// review and leave plan mode when the user approves.
	ExitToolName = "exit_plan_mode"
	// CommandName is the slash command ("/plan") that switches plan mode.
	CommandName = "plan"
	// noticeForm and reopenForm are the Source.Form of the plugin's
	// notices and of the message that gives the model a reopened plan.
	noticeForm = "notice"
	reopenForm = "reopen"
)

// ModePayload is the payload of [EventPlanMode].
type ModePayload struct {
	// Active is true while the session is in plan mode.
	Active bool `json:"active"`
}

// ReopenPayload is the payload of [EventPlanReopen].
type ReopenPayload struct {
	// Number is the plan's number among the session's presented plans
	// ([PresentedPlan.Number]).
	Number int `json:"number"`
	// Title is the plan's first heading ("" for none).
	Title string `json:"title,omitempty"`
	// Digest is [host.DigestDetail] of Plan.
	Digest string `json:"digest"`
	// Plan is the reopened plan, the working draft.
	Plan string `json:"plan"`
}

// CancelPayload is the payload of [EventPlanCancel].
type CancelPayload struct {
	// Cancelled is the withdrawn selection, "active" or "inactive"
	// ([Selection.String]).
	Cancelled string `json:"cancelled"`
}
