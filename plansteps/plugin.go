package plansteps

import (
	"context"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
	"go.uber.org/fx"
)

// ErrNotRunning means the plugin is stopped.
var ErrNotRunning = companion.ErrNotRunning

// Module is the plugin as an fx module. It needs a [Config], the host's
// registries and the plan-mode plugin, to which it supplies its exit
// extension through the [planmode.ExitExtensionGroup] value group.
var Module = fx.Module(PluginName,
	fx.Provide(New),
	fx.Invoke(func(*Plugin) {}),
	companion.RequirePlanMode(PluginName),
)

// DeployPlugin returns the plugin's entry for the deployment loader; it
// requires plan-mode in the same file.
func DeployPlugin() deploy.Plugin {
	return deploy.ModulePlugin(PluginName, []string{planmode.PluginName}, DecodeConfig, Module)
}

// Params are the inputs of [New].
type Params struct {
	fx.In

	// Config is the validated configuration.
	Config Config
	// Sections receives plan:progress.
	Sections host.Sections
	// Tools receives plan_status, plan_step_complete, plan_modify and
	// plan_complete.
	Tools host.Tools
	// Validators receives the payload check.
	Validators host.Validators
	// EventTypes receives the plugin's event types (all log-only).
	EventTypes host.EventTypes
	// Questions asks the user to approve step changes; without it
	// plan_modify refuses.
	Questions host.UserQuestions `optional:"true"`
	// Lifecycle runs Start and Stop with the application; without fx leave
	// it nil and call them yourself.
	Lifecycle fx.Lifecycle `optional:"true"`
}

// Result is the output of [New].
type Result struct {
	fx.Out

	// Plugin is the running plugin.
	Plugin *Plugin
	// Exit is the plugin's part in exit_plan_mode. Without fx, pass it in
	// planmode.Params.ExitExtensions.
	Exit planmode.ExitExtension `group:"planmode.exit"`
}

// Plugin is the plan-steps plugin.
type Plugin struct {
	p     Params
	run   companion.Lifecycle
	folds *companion.Folds[State]
}

// New builds the plugin and its exit extension. It does no I/O and
// registers nothing until Start.
func New(p Params) (Result, error) {
	if err := p.Config.Validate(); err != nil {
		return Result{}, err
	}
	pl := &Plugin{p: p, folds: companion.NewFolds(func(s *State, e host.Event) { *s = Apply(*s, e) })}
	companion.OnStartStop(p.Lifecycle, pl.Start, pl.Stop)
	return Result{Plugin: pl, Exit: pl.exitExtension()}, nil
}

// Start registers the event types, the payload check, the section and the
// tools.
func (p *Plugin) Start(context.Context) error {
	return p.run.Start(PluginName, func(r *companion.Registrar) {
		r.Add("session folds", p.folds.Open)
		r.LogOnly(p.p.EventTypes, EventSteps, EventStepCompleted, EventStepModified, EventCompleted)
		r.Validator(p.p.Validators, PluginName, CheckPayload)
		r.Section(p.p.Sections, host.Section{Name: SectionName, Order: SectionOrder, Text: p.sectionText})
		r.Tools(p.p.Tools, p.tools()...)
	})
}

// Stop undoes every registration, drops the sessions' folds and fails a
// step-change question that is still open.
func (p *Plugin) Stop(ctx context.Context) error { return p.run.Stop(ctx) }

// State returns the session's plan state: the fold the plugin keeps while
// it runs, else a fold of the log.
func (p *Plugin) State(sess host.Session) State {
	if s, err := p.folds.Get(sess); err == nil {
		return s
	}
	return Fold(sess.Events())
}
