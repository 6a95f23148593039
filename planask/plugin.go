package planask

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
	"go.uber.org/fx"
)

// Module is the plugin as an fx module.
var Module = fx.Module(PluginName, fx.Provide(New), fx.Invoke(func(*Plugin) {}))

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
	// Tools receives ask_user.
	Tools host.Tools
	// Validators receives the payload check of plan/ask and plan/answer.
	Validators host.Validators
	// EventTypes receives their declarations (log-only).
	EventTypes host.EventTypes
	// Guards is the host's tool-guard chain, which refuses ask_user outside
	// plan mode; on a host without one the tool refuses itself.
	Guards host.ToolGuards `optional:"true"`
	// Questions is the channel the questions go through; without it the
	// headless policy answers.
	Questions host.UserQuestions `optional:"true"`
	// Lifecycle runs Start and Stop; without fx leave it nil.
	Lifecycle fx.Lifecycle `optional:"true"`
}

// Plugin is the plan-ask service.
type Plugin struct {
	p   Params
	run companion.Lifecycle
}

// New builds the plugin; it registers nothing until Start.
func New(p Params) (*Plugin, error) {
	if err := p.Config.Validate(); err != nil {
		return nil, err
	}
	if p.Controller == nil {
		return nil, fmt.Errorf("%s: %w", PluginName, ErrNeedsPlanMode)
	}
	pl := &Plugin{p: p}
	companion.OnStartStop(p.Lifecycle, pl.Start, pl.Stop)
	return pl, nil
}

// Start registers the event types, the payload check, the tool and, on a
// host with a guard chain, the guard.
func (pl *Plugin) Start(context.Context) error {
	return pl.run.Start(PluginName, func(r *companion.Registrar) {
		r.LogOnly(pl.p.EventTypes, EventAsk, EventAnswer)
		r.Validator(pl.p.Validators, PluginName, CheckPayload)
		r.Tools(pl.p.Tools, companion.Tool{
			Def: host.ToolDefinition{
				Name:         ToolName,
				Description:  ToolDescription,
				InputSchema:  json.RawMessage(InputSchema),
				OutputSchema: json.RawMessage(ResultSchema),
			},
			Run: pl.askUser,
		})
		if pl.p.Guards != nil {
			r.Add("tool guard", func() (func(), error) {
				return pl.p.Guards.AddToolGuard(host.Guard{Name: PluginName, Check: pl.check, Tools: []string{ToolName}})
			})
		}
	})
}

// Stop undoes every registration and ends the questions still open.
func (pl *Plugin) Stop(ctx context.Context) error { return pl.run.Stop(ctx) }

// check is the plugin's [host.ToolGuard]: unless the configuration allows
// asking outside plan mode, it refuses ask_user while the agent's session
// is not in plan mode.
func (pl *Plugin) check(_ context.Context, call host.CallContext, name string, _ json.RawMessage) error {
	if name != ToolName || pl.allowed(call.Agent) {
		return nil
	}
	return errOutsidePlanMode
}

// allowed reports whether agent may ask now.
func (pl *Plugin) allowed(agent host.Agent) bool {
	if pl.p.Config.OutsidePlanMode {
		return true
	}
	return agent != nil && agent.Session() != nil && pl.p.Controller.Get(agent).Active
}

// askedThisTurn counts the questions logged by plan/ask events since the
// latest turn start of a session whose log is l.
func askedThisTurn(l host.Log) int {
	n := 0
	for _, e := range l.Backward(l.Len()) {
		switch e.Type {
		case host.TypeTurnStart:
			return n
		case EventAsk:
			if p, err := decodeAsk(e.Data); err == nil {
				n += len(p.Questions)
			}
		}
	}
	return n
}
