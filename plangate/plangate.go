// Package plangate is the plan-gate companion of the plan-mode plugin: a
// hard gate that refuses the listed tools while the session is in plan
// mode.
//
// Plan mode itself is guidance: it never filters or blocks tools. This
// gate is enforcement, a separate axis a deployment may add: it registers a
// [host.Guard] in the host's tool-guard chain, armed while the logged state
// is plan mode, and from the moment the user consents to enter_plan_mode
// (plan-entry) until that entry is applied or dropped. Any other pending
// entry does not arm it; a pending exit (approved, or selected while a turn
// runs) keeps it armed until it is applied. A refused call never runs; the
// model gets an is-error result that names the tool and says how to go on.
package plangate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
	"github.com/dshgo/planmode/internal/yamlcfg"
	"github.com/dshgo/planmode/planentry"
	"go.uber.org/fx"
	"gopkg.in/yaml.v3"
)

// PluginName names the plugin: its key under plugins, its fx module and its
// guard.
const PluginName = "plan-gate"

// PlanModeTools are the tools of plan mode and its companions, which the
// gate can never refuse: they are how the model leaves plan mode or works
// on its plan.
var PlanModeTools = []string{
	"ask_user", "enter_plan_mode", "exit_plan_mode",
	"plan_complete", "plan_modify", "plan_read", "plan_status", "plan_step_complete", "plan_write",
}

// keyTools is the config's one key.
const keyTools = "tools"

// Errors of the plugin.
var (
	// ErrNeedsPlanMode means the plan-mode plugin is not enabled.
	ErrNeedsPlanMode = companion.ErrNeedsPlanMode
	// ErrNoGuards means the host has no tool-guard chain.
	ErrNoGuards = errors.New(textNoGuards)
	// ErrBadConfig means a Config failed validation.
	ErrBadConfig = errors.New("invalid config")
)

// Config is the plugin's configuration:
//
//	plugins:
//	  plan-gate:
//	    tools: [write_file, run_command]
type Config struct {
	// Tools are the tools refused while plan mode is on: a non-empty list of
	// distinct names, none of them a plan-mode tool ([PlanModeTools]). The
	// host checks, when it starts serving, that every one is registered.
	Tools []string `yaml:"tools"`
}

// Validate checks a Config built by hand.
func (c Config) Validate() error {
	if len(c.Tools) == 0 {
		return fmt.Errorf("%s: %w: %s: %s", PluginName, ErrBadConfig, keyTools, textNoTools)
	}
	var bad []string
	for _, t := range c.Tools {
		if slices.Contains(PlanModeTools, t) {
			bad = append(bad, fmt.Sprintf(problemPlanModeTool, t, strings.Join(PlanModeTools, ", ")))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: %w: %s: %s", PluginName, ErrBadConfig, keyTools, strings.Join(bad, "; "))
	}
	return nil
}

// DecodeConfig decodes the plugin's YAML node strictly: tools is a
// required, non-empty list of distinct, non-blank strings naming no
// plan-mode tool; any other key is an error.
func DecodeConfig(node *yaml.Node) (Config, error) {
	m := yamlcfg.Decode(node, keyTools)
	var cfg Config
	if m.Require(keyTools, whatTools) {
		cfg.Tools = m.Strings(keyTools)
		if n := m.Node(keyTools); n != nil && n.Kind == yaml.SequenceNode {
			for i, item := range n.Content {
				if slices.Contains(PlanModeTools, item.Value) {
					m.FailAt(item, fmt.Sprintf("%s[%d]", keyTools, i), fmt.Sprintf(problemPlanModeTool, item.Value, strings.Join(PlanModeTools, ", ")))
				}
			}
		}
	}
	if errs := m.Errs(); len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return cfg, nil
}

// Module is the plugin as an fx module.
var Module = fx.Module(PluginName, fx.Provide(New), fx.Invoke(func(*Gate) {}))

// DeployPlugin returns the plugin's entry for the deployment loader.
func DeployPlugin() deploy.Plugin {
	return deploy.ModulePlugin(PluginName, []string{planmode.PluginName}, DecodeConfig, Module)
}

// Params are the inputs of [New].
type Params struct {
	fx.In

	// Config is the validated configuration.
	Config Config
	// Controller is the plan-mode service; without it New fails with
	// [ErrNeedsPlanMode].
	Controller *planmode.Controller `optional:"true"`
	// Guards is the host's tool-guard chain; without it New fails with
	// [ErrNoGuards].
	Guards host.ToolGuards `optional:"true"`
	// Lifecycle runs Start and Stop; without fx leave it nil.
	Lifecycle fx.Lifecycle `optional:"true"`
}

// Gate is the plan-gate service.
type Gate struct {
	cfg    Config
	ctl    *planmode.Controller
	guards host.ToolGuards
	run    companion.Lifecycle
}

// New builds the gate. It registers nothing until Start.
func New(p Params) (*Gate, error) {
	if err := p.Config.Validate(); err != nil {
		return nil, err
	}
	if p.Controller == nil {
		return nil, fmt.Errorf("%s: %w", PluginName, ErrNeedsPlanMode)
	}
	if p.Guards == nil {
		return nil, fmt.Errorf("%s: %w", PluginName, ErrNoGuards)
	}
	g := &Gate{cfg: p.Config, ctl: p.Controller, guards: p.Guards}
	companion.OnStartStop(p.Lifecycle, g.Start, g.Stop)
	return g, nil
}

// Start registers the guard. The host checks the guarded tools' names when
// it starts serving.
func (g *Gate) Start(context.Context) error {
	return g.run.Start(PluginName, func(r *companion.Registrar) {
		r.Add("tool guard", func() (func(), error) {
			return g.guards.AddToolGuard(host.Guard{Name: PluginName, Check: g.check, Tools: slices.Clone(g.cfg.Tools)})
		})
	})
}

// Stop removes the guard.
func (g *Gate) Stop(ctx context.Context) error { return g.run.Stop(ctx) }

// check is the gate's [host.ToolGuard]: it refuses a listed tool while
// plan mode is logged, whatever is pending, and while an entry the user
// consented to (see [consented]) is pending.
func (g *Gate) check(_ context.Context, call host.CallContext, name string, _ json.RawMessage) error {
	agent := call.Agent
	if !slices.Contains(g.cfg.Tools, name) || agent == nil || agent.Session() == nil {
		return nil
	}
	switch st := g.ctl.Get(agent); {
	case st.Active:
		return fmt.Errorf(textRefused, name)
	case st.Pending == planmode.SelectionActive && consented(agent.Session().Events()):
		return fmt.Errorf(textRefusedEntering, name)
	}
	return nil
}

// consented reports whether the pending entry of a session whose log is ev
// is one the user consented to through enter_plan_mode: the plan-entry
// plugin logs its goal event at the consent, so one follows the last
// plan-mode change.
func consented(ev host.Log) bool {
	for _, e := range ev.Backward(ev.Len()) {
		switch e.Type {
		case planentry.EventGoal:
			return true
		case planmode.EventPlanMode:
			return false
		}
	}
	return false
}
