package plangate

// Model-facing refusal; %q is the tool's name.
const textRefused = "plan mode is on, so %q was not run: this deployment allows no such changes while a plan is being " +
	"made. Keep exploring and planning; when the plan is ready, present it with exit_plan_mode (plan mode ends when " +
	"the user approves it), or, if this change cannot wait, ask the user to leave plan mode themselves (/plan off)"

// Model-facing refusal between the user's consent to enter_plan_mode and
// the start of plan mode; %q is the tool's name.
const textRefusedEntering = "the user agreed to plan mode, which starts with your next request, so %q was not run: " +
	"this deployment allows no such changes while a plan is being made. Stop changing things now; explore " +
	"read-only and then present your plan with exit_plan_mode (plan mode ends when the user approves it)"

// Config problems and errors.
const (
	whatTools           = "the tools refused while plan mode is on, for example [write_file, run_command]"
	problemPlanModeTool = "%q belongs to plan mode itself and can never be gated (plan-mode tools: %s)"
	textNoGuards        = "the host offers no tool-guard chain, so the gate cannot refuse calls"
	textNoTools         = "tools must name at least one tool"
)
