// Package planmode gives agent hosts a plan mode: a per-agent collaboration
// state, logged in the session, under which deployment-owned guidance is
// added to every model request as the system-prompt section "plan:policy".
//
// Plan mode is soft guidance. It never filters the tool catalog and never
// blocks a tool; hard limits (sandbox, approval policy) are separate
// mechanisms that neither read nor write plan state.
//
// # State
//
// The state is the last "plan/mode" event of the session log
// ([FoldPlanMode]), so resume, fork and compaction restore it. A change the
// user selects while no turn is open is appended at once; one selected while
// a turn is open is kept in process memory as a pending selection and
// appended by the plugin's pre-step listener at the next accepted step,
// before the host derives that step's request. [Controller.Get] and
// [Controller.Set] describe the rules; [Project] rebuilds a pending
// selection from the log alone.
//
// The controller keeps a small state per session it serves, folded from the
// log once and then kept current by a session subscription, so that Get,
// the section and the pre-step listener cost the same whatever the length of
// the log. That state is keyed by the session's ID and lives until the
// session reports that it closed ([host.SessionCloseNotifier]) or the
// controller stops.
//
// # Notices
//
// When a user's change lands and the last request header described the
// other mode, the plugin records one notice for the model (a "user/message"
// from the plugin saying the mode it switched to); never before the first
// header, never twice for one change, and never for a flip sequence that
// returns to the logged state. Because a notice is tied to the last header,
// a change that is announced and then reverted between two requests leaves
// the first notice in the transcript; the next request's prompt shows the
// current mode. An approved exit from plan mode records no notice.
//
// # Limitation
//
// A pending selection lives in process memory. One made after a turn's last
// accepted step waits for the next turn, and is lost if the process exits
// first — unless the log can rebuild it: a completed "/plan" command or an
// approved exit_plan_mode call is seeded again from the log when the
// controller next serves the session ([Project]). Cancelling such a
// selection is logged too ([EventPlanCancel]), so that it stays cancelled.
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
	// commandHint shows the command's arguments in help listings.
	commandHint = "[off|reopen [N]|message]"
	// commandArgOff is the one argument of [CommandName] that selects the
	// default mode; it is matched exactly after trimming white space.
	commandArgOff = "off"
	// commandArgReopen is the argument of [CommandName] that reopens a
	// plan of the session: "reopen" alone (the last approved plan) or
	// followed by the plan's number, as "/plans" numbers them.
	commandArgReopen = "reopen"
	// noticeForm is the Source.Form of the notices the plugin records.
	noticeForm = "notice"
	// reopenForm is the Source.Form of the message that gives the model a
	// reopened plan.
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
