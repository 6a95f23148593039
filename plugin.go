package planmode

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"go.uber.org/fx"
	"gopkg.in/yaml.v3"
)

// Module is the plan-mode plugin as an fx module. It needs a [Config] and
// the host's registries (see [Params]) from the application, provides the
// [*Controller], and starts and stops it with the application.
// [DeployPlugin] installs it with the Config supplied to the plugin alone.
var Module = fx.Module(PluginName, moduleOptions()...)

// moduleWith is [Module] with cfg supplied privately (fx.Private), so it
// never clashes with another module's Config.
func moduleWith(cfg Config) fx.Option {
	return fx.Module(PluginName, append([]fx.Option{fx.Supply(cfg, fx.Private)}, moduleOptions()...)...)
}

// moduleOptions is the body of the plugin's fx module.
func moduleOptions() []fx.Option {
	return []fx.Option{
		fx.Provide(New),
		// Nothing asks for the Controller (it registers itself when it
		// starts): ask here, so enabling the plugin runs it.
		fx.Invoke(func(*Controller) {}),
	}
}

// DeployPlugin returns the plugin's entry for the deployment loader: it
// decodes the "plan-mode" configuration and installs the plugin with it.
func DeployPlugin() deploy.Plugin {
	return deploy.Plugin{
		Name: PluginName,
		Load: func(node *yaml.Node) (fx.Option, error) {
			cfg, err := decodeConfig(node)
			if err != nil {
				return nil, err
			}
			return moduleWith(cfg), nil
		},
	}
}

// Params are the inputs of [New].
type Params struct {
	fx.In

	// Config is the plugin's validated configuration.
	Config Config
	// Sections receives the plan:policy section.
	Sections host.Sections
	// Tools receives the exit_plan_mode tool.
	Tools host.Tools
	// PreStep receives the plugin's pre-step listener, prepended.
	PreStep host.PreStepChain
	// Validators receives the payload check of plan/mode, plan/cancel and
	// plan/reopen.
	Validators host.Validators
	// EventTypes receives the plan/mode, plan/cancel and plan/reopen
	// declarations (all log-only).
	EventTypes host.EventTypes
	// Lifecycle runs Start and Stop with the application. Without fx, leave
	// it nil and call them yourself.
	Lifecycle fx.Lifecycle `optional:"true"`
	// Commands receives the /plan command; without it there is none.
	Commands host.Commands `optional:"true"`
	// Questions is the channel the exit tool asks the reviewer through;
	// without it the tool refuses.
	Questions host.UserQuestions `optional:"true"`
	// Logger receives warnings (an append that failed and will be retried);
	// nil discards them.
	Logger *slog.Logger `optional:"true"`
	// ExitExtensions are the companion plugins' parts in exit_plan_mode,
	// supplied through the [ExitExtensionGroup] value group.
	ExitExtensions []ExitExtension `group:"planmode.exit"`
}

// Result is the output of [New].
type Result struct {
	fx.Out

	// Controller is the plan-mode service (ctx.planMode).
	Controller *Controller
}

// New builds the controller. It validates the config, does no I/O and
// registers nothing: [Controller.Start] does, from Params.Lifecycle if set.
func New(p Params) (Result, error) {
	if err := p.Config.Validate(); err != nil {
		return Result{}, err
	}
	if missing := p.missing(); len(missing) > 0 {
		return Result{}, fmt.Errorf("%s: %w: %s", PluginName, errMissingDependency, strings.Join(missing, ", "))
	}
	exts, err := newExitExtensions(p.ExitExtensions)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", PluginName, err)
	}
	if p.Logger == nil {
		p.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{p: p, exits: exts}
	if p.Lifecycle != nil {
		p.Lifecycle.Append(fx.StartStopHook(c.Start, c.Stop))
	}
	return Result{Controller: c}, nil
}

// missing names the required host registries that are nil.
func (p Params) missing() []string {
	var names []string
	for _, r := range []struct {
		name string
		set  bool
	}{{"Sections", p.Sections != nil}, {"Tools", p.Tools != nil}, {"PreStep", p.PreStep != nil},
		{"Validators", p.Validators != nil}, {"EventTypes", p.EventTypes != nil}} {
		if !r.set {
			names = append(names, r.name)
		}
	}
	return names
}

// Start registers the plugin with the host: its event types, the payload
// check, the plan:policy section, the pre-step listener (outermost), the
// exit_plan_mode tool and, with a command registry, /plan. If one fails, the
// ones made are undone and its error returned. Starting twice fails.
func (c *Controller) Start(ctx context.Context) error {
	c.lifecycle.Lock()
	defer c.lifecycle.Unlock()
	if c.current() != nil {
		return fmt.Errorf("%s: start: %w", PluginName, errAlreadyRunning)
	}
	r := newRun()
	c.setRun(r)
	for _, reg := range c.registrations() {
		undo, err := reg.add()
		if err != nil {
			c.stop(r)
			return fmt.Errorf("%s: start: %s: %w", PluginName, reg.what, err)
		}
		r.undo = append(r.undo, undo)
	}
	return nil
}

// Stop undoes Start's registrations, drops the in-memory pending selections
// and fails an open plan review. From the moment Stop begins the controller
// appends nothing more, and Set fails with [ErrNotRunning]. Stopping a
// stopped controller does nothing.
func (c *Controller) Stop(ctx context.Context) error {
	c.lifecycle.Lock()
	defer c.lifecycle.Unlock()
	if r := c.current(); r != nil {
		c.stop(r)
	}
	return nil
}

// stop ends run r; callers hold c.lifecycle.
func (c *Controller) stop(r *run) {
	c.setRun(nil)
	r.close() // first: a Set or pre-step in flight appends nothing from here on
	for _, undo := range slices.Backward(r.undo) {
		undo()
	}
	r.stop()
}

// registration is one thing Start adds to the host.
type registration struct {
	what string
	add  func() (undo func(), err error)
}

// registrations lists what Start registers, in order: the event types and
// the payload check first, so no bad plan-mode event is appended.
func (c *Controller) registrations() []registration {
	var regs []registration
	for _, name := range []string{EventPlanMode, EventPlanCancel, EventPlanReopen} {
		t := host.EventType{Name: name, Kind: host.LogOnly}
		regs = append(regs, registration{"event type " + name, func() (func(), error) { return c.p.EventTypes.DeclareEventType(t) }})
	}
	regs = append(regs, []registration{
		{"payload check", func() (func(), error) {
			return c.p.Validators.AddValidator(PluginName, CheckPayload)
		}},
		{"section", func() (func(), error) { return c.p.Sections.AddSection(c.section()) }},
		{"pre-step listener", func() (func(), error) { return c.p.PreStep.AddPreStep(PluginName, c.preStep, true) }},
		{"tool " + ExitToolName, func() (func(), error) { return c.p.Tools.AddTool(newExitTool(c)) }},
	}...)
	if c.p.Commands != nil {
		regs = append(regs, registration{"command /" + CommandName, func() (func(), error) { return c.p.Commands.AddCommand(c.command()) }})
	}
	return regs
}
