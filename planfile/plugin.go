package planfile

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
	"go.uber.org/fx"
	"gopkg.in/yaml.v3"
)

// Module is the plugin as an fx module. It needs a [Config], the host's
// registries and the plan-mode plugin; it provides the [*Plugin] and
// supplies its [planmode.ExitExtension] to the plan-mode controller.
var Module = fx.Module(PluginName,
	fx.Provide(New),
	fx.Invoke(func(*Plugin) {}),
	companion.RequirePlanMode(PluginName),
)

// DeployPlugin returns the plugin's entry for the deployment loader. It
// requires plan-mode to be enabled in the same file.
func DeployPlugin() deploy.Plugin {
	return deploy.Plugin{
		Name:     PluginName,
		Requires: []string{planmode.PluginName},
		LoadFile: func(file string, node *yaml.Node) (fx.Option, error) {
			cfg, err := DecodeConfig(file, node)
			if err != nil {
				return nil, err
			}
			return fx.Options(fx.Supply(cfg), Module), nil
		},
	}
}

// Params are the inputs of [New].
type Params struct {
	fx.In

	// Config is the validated configuration.
	Config Config
	// Sections receives plan:file.
	Sections host.Sections
	// Tools receives plan_read and plan_write.
	Tools host.Tools
	// PreStep receives the listener that copies a fork's plan file and
	// creates an empty one when plan mode is on.
	PreStep host.PreStepChain
	// Validators receives the payload check of plan/approved and plan/file.
	Validators host.Validators
	// EventTypes receives their declarations (log-only).
	EventTypes host.EventTypes
	// Lifecycle runs Start and Stop; without fx leave it nil and call them.
	Lifecycle fx.Lifecycle `optional:"true"`
	// Logger receives warnings; nil discards them.
	Logger *slog.Logger `optional:"true"`
}

// Result is the output of [New].
type Result struct {
	fx.Out

	// Plugin is the plan-file service.
	Plugin *Plugin
	// Exit is the plugin's part in exit_plan_mode; pass it in
	// planmode.Params.ExitExtensions when not using fx.
	Exit planmode.ExitExtension `group:"planmode.exit"`
}

// Plugin is the plan-file service: the store, the tools, the section and
// the exit extension.
type Plugin struct {
	store   *Store
	logger  *slog.Logger
	p       Params
	run     companion.Lifecycle
	history *companion.Folds[history]
}

// New builds the plugin. It does no I/O and registers nothing until Start.
func New(p Params) (Result, error) {
	if err := p.Config.Validate(); err != nil {
		return Result{}, err
	}
	st, err := NewStore(p.Config.Dir, p.Config.maxBytes())
	if err != nil {
		return Result{}, err
	}
	logger := p.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	pl := &Plugin{store: st, logger: logger, p: p,
		history: companion.NewFolds((*history).fold)}
	companion.OnStartStop(p.Lifecycle, pl.Start, pl.Stop)
	return Result{Plugin: pl, Exit: pl.extension()}, nil
}

// Store returns the plugin's plan-file store.
func (pl *Plugin) Store() *Store { return pl.store }

// Path returns the plan file's path for an agent's session.
func (pl *Plugin) Path(agent host.Agent) string { return pl.store.Path(agent.Session().ID()) }

// Plan returns the plan file's content for an agent's session, checked as
// Store.Read checks it; a session without a plan file has the plan "".
func (pl *Plugin) Plan(ctx context.Context, agent host.Agent) (string, error) {
	doc, err := pl.store.Read(ctx, agent.Session().ID())
	return doc.Content, err
}

// Start registers the event types, the payload check, the section, the
// pre-step listener and the tools.
func (pl *Plugin) Start(context.Context) error {
	return pl.run.Start(PluginName, func(r *companion.Registrar) {
		r.Add("session folds", pl.history.Open)
		r.LogOnly(pl.p.EventTypes, EventApproved, EventFile)
		r.Validator(pl.p.Validators, PluginName, CheckPayload)
		r.Section(pl.p.Sections, host.Section{Name: SectionName, Order: SectionOrder, Text: pl.sectionText})
		r.Add("pre-step listener", func() (func(), error) { return pl.p.PreStep.AddPreStep(PluginName, pl.preStep, false) })
		r.Tools(pl.p.Tools, companion.Tool{
			Def: host.ToolDefinition{Name: ReadToolName, Description: ReadToolDescription, InputSchema: json.RawMessage(ReadInputSchema)},
			Run: pl.read,
		}, companion.Tool{
			Def: host.ToolDefinition{Name: WriteToolName, Description: WriteToolDescription, InputSchema: json.RawMessage(WriteInputSchema)},
			Run: pl.writeTool,
		})
	})
}

// Stop undoes every registration. Stopping a stopped plugin does nothing.
func (pl *Plugin) Stop(ctx context.Context) error { return pl.run.Stop(ctx) }

// serve does, once per session and process, what the plugin owes a session
// it sees for the first time: a fork gets a copy of its parent's plan file
// (nothing to copy is fine), and the session is marked as the owner of its
// file in the log. It must not run inside a session callback.
func (pl *Plugin) serve(ctx context.Context, sess host.Session) {
	served := true
	h, err := pl.history.Update(sess, func(h *history) { served, h.served = h.served, true })
	if err != nil || served {
		return
	}
	id := sess.ID()
	if h.owner == "" || h.owner == id {
		return
	}
	if _, err := pl.store.CopyTo(ctx, h.owner, id); err != nil {
		pl.logger.Warn(warnCopyFailed, "session", id, "parent", h.owner, "error", err)
		return
	}
	pl.markOwner(ctx, sess)
}

// markOwner appends the plan/file marker naming sess when the log does not
// already name it.
func (pl *Plugin) markOwner(ctx context.Context, sess host.Session) {
	h, err := pl.history.Get(sess)
	if err != nil || h.owner == sess.ID() {
		return
	}
	data, _ := json.Marshal(FilePayload{Session: sess.ID()})
	if _, err := host.Append(ctx, sess, host.Event{Type: EventFile, Data: data}); err != nil {
		pl.logger.Warn(warnMarkFailed, "session", sess.ID(), "error", err)
	}
}

// preStep runs the rest of the chain, then, for an accepted step, serves
// the session and, while plan mode is on, makes sure the plan file exists
// (empty) so the user can open it at the path the section shows.
func (pl *Plugin) preStep(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
	d := next(ctx, s)
	if !d.Accepted || ctx.Err() != nil || s.Agent == nil || s.Agent.Session() == nil {
		return d
	}
	sess := s.Agent.Session()
	pl.serve(ctx, sess)
	if h, err := pl.history.Get(sess); err == nil && h.active {
		if created, err := pl.store.Seed(ctx, sess.ID()); err != nil {
			pl.logger.Warn(warnSeedFailed, "session", sess.ID(), "error", err)
		} else if created {
			pl.markOwner(ctx, sess)
		}
	}
	return d
}

// sectionText renders plan:file while the agent's logged state is plan
// mode: the path, how to use the file, and whether it holds a plan (or the
// plan of an earlier planning session).
func (pl *Plugin) sectionText(ac host.AssembleContext) string {
	if ac.Agent == nil || ac.Agent.Session() == nil {
		return ""
	}
	sess := ac.Agent.Session()
	h, err := pl.history.Get(sess)
	if err != nil || !h.active {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, sectionIntro, pl.store.Path(sess.ID()))
	b.WriteString("\n")
	has, err := pl.store.HasPlan(context.Background(), sess.ID())
	switch {
	case err != nil:
		fmt.Fprintf(&b, textFileError, err)
	case has && h.left:
		b.WriteString(sectionReturning)
	case has:
		b.WriteString(sectionHasPlan)
	default:
		b.WriteString(sectionEmpty)
	}
	return b.String()
}
