// Package planmode gives agent hosts a plan mode: a per-agent collaboration
// state, logged in the session, under which deployment-owned guidance is
// added to every model request as the system-prompt section "plan:policy".
// It is soft guidance: it never filters the tool catalog nor blocks a tool;
// hard limits (sandbox, approval policy) are separate mechanisms that
// neither read nor write it.
//
// # State
//
// The state is the last "plan/mode" event of the session log
// ([FoldPlanMode]), so resume, fork and compaction restore it. A change the
// user selects while no turn is open is appended at once; one selected
// while a turn is open is kept in memory as a pending selection, which the
// plugin's pre-step listener appends at the next accepted step, before the
// host derives that step's request ([Controller.Set]). The controller keeps
// a small state per session it serves, folded from the log once and kept
// current by a session subscription, until the session closes
// ([host.SessionCloseNotifier]) or the controller stops.
//
// A pending selection made after a turn's last accepted step waits for the
// next turn, and is lost if the process exits first, unless the log can
// rebuild it: a completed "/plan" command or an approved exit_plan_mode
// call is seeded again from the log ([Project]), and cancelling one is
// logged too ([EventPlanCancel]).
//
// # Notices
//
// When a user's change lands and the last request header described the
// other mode, the plugin records one notice for the model (a "user/message"
// from the plugin naming the new mode): never before the first header,
// never twice for one change, never for flips that return to the logged
// state, never for an approved exit. A change announced and reverted
// between two requests leaves its notice; the next prompt shows the mode.
//
// # Exit and /plan
//
// The model presents its plan with exit_plan_mode; the user approves it or
// sends it back, and companion plugins extend the review ([ExitExtension]).
// The "/plan" command switches the mode. Their failures are [*Error]
// values whose Code a host or front end switches on.
//
// Use [Module] with fx (the deployment loader builds it through
// [DeployPlugin]), or call [New] and [Controller.Start] directly.
package planmode

// Names the plugin registers with the host.
const (
	// PluginName names the plugin: its config key under "plugins", its fx
	// module, its pre-step listener, its payload validator and the Plugin
	// field of the notices it records.
	PluginName = "plan-mode"
	// EventPlanMode is the log-only event that records the plan-mode state.
	// Its payload is [ModePayload]; each event replaces the whole value.
	EventPlanMode = "plan/mode"
	// EventPlanCancel is the log-only marker [Controller.Set] appends when it
	// cancels a pending selection that the log records (a "/plan" command
	// that ran, or an approved exit_plan_mode call): every such selection
	// made before the marker is withdrawn, so [Project] and a restarted
	// controller do not bring it back. It never changes the logged state.
	// Its payload is [CancelPayload].
	EventPlanCancel = "plan/cancel"
	// EventPlanReopen is the log-only event "/plan reopen" appends: the
	// plan it reopened as the working draft. Its payload is
	// [ReopenPayload]. The next plan review shows what changed from it.
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
	// Cancelled is the pending selection that was withdrawn: "active" (a
	// switch into plan mode) or "inactive" (a switch back to the default
	// mode), as [Selection.String] names them.
	Cancelled string `json:"cancelled"`
}
