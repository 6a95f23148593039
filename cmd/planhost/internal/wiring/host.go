// Package wiring composes planhost's host: the reference host with the
// deployment's plugins, planhost's own tools and section, the session
// store (files or PostgreSQL) and the agent documents, the model (one, or
// one per mode) and the checks that keep the model's workspace apart from
// what planhost keeps. Every subcommand that runs a session builds its
// host here.
package wiring

import (
	"context"
	"log/slog"
	"time"

	"go.uber.org/fx"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/approvewith"
	"github.com/dshgo/planmode/internal/saveplan"
	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/planfile"
	"github.com/dshgo/planmode/plangate"
	"github.com/dshgo/planmode/planreview"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
	"github.com/dshgo/planmode/todo"
)

// Config is what a host is composed from.
type Config struct {
	Store      host.Store
	Model      refhost.Model
	Deployment *deploy.Deployment
	// Tools are registered while the app runs; validate has none.
	Tools  []host.Tool
	Logger *slog.Logger
	// Documents keeps agent-scoped documents (the todo list); nil means
	// an in-memory store.
	Documents host.Documents
	// Lease receives the turn-lease notices of shared sessions; nil drops
	// them.
	Lease *Lease
	// ExecuteModel, when set, is the default mode's model, offered in the
	// review as "Approve and execute with MODEL" (plan mode has a model of
	// its own).
	ExecuteModel string
}

// Parts are the pieces of a built host the front ends drive.
type Parts struct {
	fx.In

	Runtime *refhost.Runtime
	// Plan is nil when the deployment does not enable plan-mode.
	Plan *planmode.Controller `optional:"true"`
	// PlanFile is nil when the deployment does not enable plan-file.
	PlanFile *planfile.Plugin `optional:"true"`
}

// offered is a plugin a deployment file may enable, with the payload
// check of the events it records (nil when it records none of its own).
type offered struct {
	plugin deploy.Plugin
	check  host.Validator
}

// offeredPlugins is the one list Plugins and PayloadChecks derive from:
// a plugin is offered together with its payload check, so that whatever
// reads a session for the user (import, export, inspect) checks every
// event as the plugins check it when the session is run.
func offeredPlugins() []offered {
	return []offered{
		{planmode.DeployPlugin(), planmode.CheckPayload},
		{planfile.DeployPlugin(), planfile.CheckPayload},
		{planentry.DeployPlugin(), planentry.CheckPayload},
		{planask.DeployPlugin(), planask.CheckPayload},
		{planreview.DeployPlugin(), planreview.CheckPayload},
		{plangate.DeployPlugin(), nil},
		{plansteps.DeployPlugin(), plansteps.CheckPayload},
		{todo.DeployPlugin(), nil},
	}
}

// Plugins are the plugins a deployment file may enable: plan-mode and the
// companions, in any mix (each companion but todo requires plan-mode).
func Plugins() []deploy.Plugin {
	var plugins []deploy.Plugin
	for _, o := range offeredPlugins() {
		plugins = append(plugins, o.plugin)
	}
	return plugins
}

// PayloadChecks are the payload checks of the plugins planhost offers,
// by plugin name: a session passes them all before it is imported,
// exported or inspected, as it would when run with any deployment.
func PayloadChecks() map[string]host.Validator {
	checks := make(map[string]host.Validator)
	for _, o := range offeredPlugins() {
		if o.check != nil {
			checks[o.plugin.Name] = o.check
		}
	}
	return checks
}

// AddPayloadChecks registers every check of PayloadChecks with vs; an
// event one refuses fails with a *PayloadError.
func AddPayloadChecks(vs host.Validators) error {
	for name, check := range PayloadChecks() {
		refuse := func(e host.Event) error {
			if err := check(e); err != nil {
				return &PayloadError{Seq: e.Seq, Err: err}
			}
			return nil
		}
		if _, err := vs.AddValidator(name, refuse); err != nil {
			return err
		}
	}
	return nil
}

// PayloadError is an event a check of AddPayloadChecks refused: Seq is
// its place in the log. Its text is the plugin's, which names the plugin and
// the event, so a refusal shown as the file, the line and the
// PayloadError says each once.
type PayloadError struct {
	Seq uint64
	Err error
}

func (e *PayloadError) Error() string { return e.Err.Error() }

func (e *PayloadError) Unwrap() error { return e.Err }

// New builds (but does not start) the fx application: the reference host,
// the deployment's plugins, planhost's review answers, section and tools.
func New(cfg Config) (*fx.App, *Parts) {
	parts := new(Parts)
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	docs := cfg.Documents
	if docs == nil {
		docs = store.NewMemoryDocuments()
	}
	app := fx.New(
		fx.NopLogger,
		fx.Supply(
			fx.Annotate(cfg.Store, fx.As(new(host.Store))),
			fx.Annotate(cfg.Model, fx.As(new(refhost.Model))),
			fx.Annotate(docs, fx.As(new(host.Documents))),
			logger,
			cfg.Lease.settings(),
		),
		editExtensionOption(cfg.Deployment),
		// "Save plan and stop", offered in every front end's review.
		fx.Supply(fx.Annotated{Group: planmode.ExitExtensionGroup, Target: saveplan.Extension()}),
		executeWithOption(cfg.ExecuteModel),
		refhost.Module,
		cfg.Deployment.Option(),
		// planhost's own section and tools are registered with the host's
		// lifecycle, like a plugin's; nothing else would ask for them.
		fx.Invoke(func(lc fx.Lifecycle, sections host.Sections, tools host.Tools) {
			register(lc, sections, tools, cfg.Tools)
		}),
		fx.Populate(parts),
	)
	return app, parts
}

// executeWithOption offers "Approve and execute with MODEL" in every
// front end's review when model is set.
func executeWithOption(model string) fx.Option {
	if model == "" {
		return fx.Options()
	}
	return fx.Supply(fx.Annotated{Group: planmode.ExitExtensionGroup, Target: approvewith.Extension(model)})
}

// register adds planhost's own prompt section and the tools when the app
// starts, and removes them when it stops.
func register(lc fx.Lifecycle, sections host.Sections, reg host.Tools, tools []host.Tool) {
	var undo []func()
	unregister := func() {
		for _, f := range undo {
			f()
		}
		undo = nil
	}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			adds := []func() (func(), error){func() (func(), error) { return sections.AddSection(baseSection()) }}
			for _, t := range tools {
				adds = append(adds, func() (func(), error) { return reg.AddTool(t) })
			}
			for _, add := range adds {
				u, err := add()
				if err != nil {
					unregister()
					return err
				}
				undo = append(undo, u)
			}
			return nil
		},
		OnStop: func(context.Context) error {
			unregister()
			return nil
		},
	})
}

// The system-prompt section planhost adds for the model.
const (
	baseSectionName  = "planhost:base"
	baseSectionOrder = 10
	baseSectionText  = "You are a coding agent working in a workspace directory. Explore it with list_files, " +
		"read_file and search, and change it with write_file. Paths are relative to the workspace root. " +
		"Keep answers short."
)

// baseSection is planhost's own part of the system prompt.
func baseSection() host.Section {
	return host.Section{
		Name:  baseSectionName,
		Order: baseSectionOrder,
		Text:  func(host.AssembleContext) string { return baseSectionText },
	}
}

// stopTimeout bounds stopping the host and an agent.
const stopTimeout = 10 * time.Second

// Stop stops the fx app within a bounded time.
func Stop(app interface{ Stop(context.Context) error }) {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	_ = app.Stop(ctx)
}

// StopAgent stops the agent within a bounded time.
func StopAgent(a *refhost.Agent) {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	_ = a.Stop(ctx)
}
