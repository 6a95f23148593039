package main

import (
	"context"
	"log/slog"
	"sync"

	"go.uber.org/fx"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/approvewith"
	"github.com/dshgo/planmode/cmd/planhost/internal/saveplan"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planfile"
	"github.com/dshgo/planmode/refhost"
)

// hostConfig is what a program composes the host from.
type hostConfig struct {
	store      host.Store
	model      refhost.Model
	deployment *deploy.Deployment
	// tools are registered while the app runs; validate has none.
	tools  []host.Tool
	logger *slog.Logger
	// documents keeps agent-scoped documents (the todo list); nil means
	// an in-memory store.
	documents host.Documents
	// lease receives the turn-lease notices of shared sessions; nil
	// drops them.
	lease *leaseRelay
	// executeModel, when set, is the default mode's model offered in the
	// review as "Approve and execute with MODEL" (plan mode has a model
	// of its own).
	executeModel string
}

// hostParts are the pieces of a built host the program drives.
type hostParts struct {
	fx.In

	Runtime *refhost.Runtime
	// Plan is nil when the deployment does not enable plan-mode.
	Plan *planmode.Controller `optional:"true"`
	// PlanFile is nil when the deployment does not enable plan-file.
	PlanFile   *planfile.Plugin `optional:"true"`
	Presenters *presenters
}

// offeredPlugins are the plugins a deployment file may enable.
func offeredPlugins() []deploy.Plugin {
	return append([]deploy.Plugin{planmode.DeployPlugin()}, companionPlugins()...)
}

// newHost builds (but does not start) the fx application: the reference
// host, the deployment's plugins, the workspace tools and the presenter
// registry the console uses to show tool calls as cards.
func newHost(cfg hostConfig) (*fx.App, *hostParts) {
	parts := new(hostParts)
	logger := cfg.logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	app := fx.New(
		fx.NopLogger,
		fx.Supply(
			fx.Annotate(cfg.store, fx.As(new(host.Store))),
			fx.Annotate(cfg.model, fx.As(new(refhost.Model))),
			fx.Annotate(documentsOrMemory(cfg.documents), fx.As(new(host.Documents))),
			logger,
			cfg.lease.settings(),
		),
		fx.Provide(newPresenters),
		editExtensionOption(cfg.deployment),
		// "Save plan and stop", offered in every front end's review.
		fx.Supply(fx.Annotated{Group: planmode.ExitExtensionGroup, Target: saveplan.Extension()}),
		executeWithOption(cfg.executeModel),
		fx.Decorate(func(p *presenters, t host.Tools) host.Tools { return presentingTools{next: t, p: p} }),
		refhost.Module,
		cfg.deployment.Option(),
		// planhost's own section and tools are registered with the host's
		// lifecycle, like a plugin's; nothing else would ask for them.
		fx.Invoke(func(lc fx.Lifecycle, sections host.Sections, tools host.Tools) {
			register(lc, sections, tools, cfg.tools)
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
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			adds := []func() (func(), error){func() (func(), error) { return sections.AddSection(baseSection()) }}
			for _, t := range tools {
				adds = append(adds, func() (func(), error) { return reg.AddTool(t) })
			}
			for _, add := range adds {
				u, err := add()
				if err != nil {
					for _, f := range undo {
						f()
					}
					undo = nil
					return err
				}
				undo = append(undo, u)
			}
			return nil
		},
		OnStop: func(context.Context) error {
			for _, f := range undo {
				f()
			}
			undo = nil
			return nil
		},
	})
}

// baseSection is planhost's own part of the system prompt.
func baseSection() host.Section {
	return host.Section{
		Name:  baseSectionName,
		Order: baseSectionOrder,
		Text:  func(host.AssembleContext) string { return baseSectionText },
	}
}

// presenters remembers the registered tools that present their calls and
// results as cards (exit_plan_mode does), by tool name.
type presenters struct {
	mu     sync.RWMutex
	byName map[string]host.Presenter
}

func newPresenters() *presenters { return &presenters{byName: map[string]host.Presenter{}} }

// lookup returns the presenter of the tool called name, if any.
func (p *presenters) lookup(name string) (host.Presenter, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	pr, ok := p.byName[name]
	return pr, ok
}

// presentingTools is the host's tool registry, decorated so that the
// presenters are recorded as they are registered.
type presentingTools struct {
	next host.Tools
	p    *presenters
}

func (t presentingTools) AddTool(tool host.Tool) (func(), error) {
	unregister, err := t.next.AddTool(tool)
	if err != nil {
		return nil, err
	}
	pr, ok := tool.(host.Presenter)
	if !ok {
		return unregister, nil
	}
	name := tool.Definition().Name
	t.p.mu.Lock()
	t.p.byName[name] = pr
	t.p.mu.Unlock()
	return func() {
		t.p.mu.Lock()
		if t.p.byName[name] == pr {
			delete(t.p.byName, name)
		}
		t.p.mu.Unlock()
		unregister()
	}, nil
}

var _ host.Tools = presentingTools{}
