// Package planmode gives agent hosts a plan mode: a per-agent collaboration
// state, logged in the session, under which deployment-owned guidance is
// added to every model request as the system-prompt section "plan:policy".
//
// Plan mode is soft guidance. It never filters the tool catalog and never
// blocks a tool; hard limits (sandbox, approval policy) are separate
// mechanisms that neither read nor write plan state.
//
// The state is the last "plan/mode" event of the session log ([FoldPlanMode]),
// so resume, fork and compaction restore it. A user's change made while a
// turn is open is kept in process memory as a pending selection and appended
// by the plugin's pre-step listener at the next accepted step, before the
// host derives that step's request.
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
	// CommandHint shows the command's arguments in help listings.
	CommandHint = "[off|message]"
	// CommandArgOff is the one argument of [CommandName] that selects the
	// default mode; it is matched exactly after trimming white space.
	CommandArgOff = "off"
	// NoticeForm is the Source.Form of the notices the plugin records.
	NoticeForm = "notice"
)

// ModePayload is the payload of [EventPlanMode].
type ModePayload struct {
	// Active is true while the session is in plan mode.
	Active bool `json:"active"`
}
