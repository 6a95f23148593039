package todo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
	"go.uber.org/fx"
)

// Errors of the plugin's lifecycle.
var (
	// ErrMissingDependency means New was given no value for a required host
	// service.
	ErrMissingDependency = errors.New("missing host service")
	// ErrAlreadyRunning means Start was called on a running plugin.
	ErrAlreadyRunning = companion.ErrAlreadyRunning
)

// Module is the todo plugin as an fx module. It needs a [Config], the
// host's tool registry and its agent document store ([host.Documents]).
var Module = fx.Module(PluginName,
	fx.Provide(New),
	fx.Invoke(func(*Plugin) {}),
)

// DeployPlugin returns the plugin's entry for the deployment loader. The
// plugin does not need plan-mode.
func DeployPlugin() deploy.Plugin {
	return deploy.ModulePlugin(PluginName, nil, DecodeConfig, Module)
}

// Params are the inputs of [New].
type Params struct {
	fx.In

	// Config is the validated configuration.
	Config Config
	// Tools receives todo_read and todo_write.
	Tools host.Tools
	// Documents keeps the agents' lists. It is required; it is optional
	// for fx only so that New can say what is missing.
	Documents host.Documents `optional:"true"`
	// Lifecycle runs Start and Stop with the application. Without fx, leave
	// it nil and call them yourself.
	Lifecycle fx.Lifecycle `optional:"true"`
	// Now is the clock of the timestamps; nil means time.Now.
	Now func() time.Time `optional:"true"`
}

// Result is the output of [New].
type Result struct {
	fx.Out

	Plugin *Plugin
}

// Plugin is the running todo plugin: it registers the two tools between
// Start and Stop and reads and writes the agents' lists.
type Plugin struct {
	cfg   Config
	tools host.Tools
	docs  host.Documents
	now   func() time.Time
	run   companion.Lifecycle
}

// New builds the plugin. It checks the config and the host services, does
// no I/O and registers nothing until Start.
func New(p Params) (Result, error) {
	if err := p.Config.Validate(); err != nil {
		return Result{}, err
	}
	switch {
	case p.Tools == nil:
		return Result{}, fmt.Errorf("%s: %w: %s", PluginName, ErrMissingDependency, textMissingTools)
	case p.Documents == nil:
		return Result{}, fmt.Errorf("%s: %w: %s", PluginName, ErrMissingDependency, textMissingDocuments)
	}
	now := p.Now
	if now == nil {
		now = time.Now
	}
	pl := &Plugin{cfg: p.Config, tools: p.Tools, docs: p.Documents, now: now}
	companion.OnStartStop(p.Lifecycle, pl.Start, pl.Stop)
	return Result{Plugin: pl}, nil
}

// Start registers todo_read and todo_write.
func (p *Plugin) Start(context.Context) error {
	return p.run.Start(PluginName, func(r *companion.Registrar) {
		r.Tools(p.tools, companion.Tool{
			Def: host.ToolDefinition{Name: ReadToolName, Description: ReadToolDescription,
				InputSchema: json.RawMessage(ReadInputSchema), OutputSchema: json.RawMessage(ListSchema)},
			Run: p.read,
		}, companion.Tool{
			Def: host.ToolDefinition{Name: WriteToolName, Description: WriteToolDescription,
				InputSchema: json.RawMessage(WriteInputSchema), OutputSchema: json.RawMessage(ListSchema)},
			Run: p.write,
		})
	})
}

// Stop removes the tools. Stopping a stopped plugin does nothing.
func (p *Plugin) Stop(ctx context.Context) error { return p.run.Stop(ctx) }

// Read returns the agent's list: empty when the agent never wrote one.
func (p *Plugin) Read(ctx context.Context, agentID string) ([]Item, error) {
	l, _, err := p.load(ctx, agentID)
	return l.Todos, err
}

// load reads the stored list and its version (0 when there is none).
func (p *Plugin) load(ctx context.Context, agentID string) (List, int64, error) {
	doc, err := p.docs.Get(ctx, agentID, DocumentName)
	if errors.Is(err, host.ErrDocumentNotFound) {
		return List{Todos: []Item{}}, 0, nil
	}
	if err != nil {
		return List{}, 0, fmt.Errorf("%s: %w", textReadFailed, err)
	}
	l, err := ParseList(doc.Data)
	if err != nil {
		return List{}, 0, fmt.Errorf("%s: %w", textCorrupt, err)
	}
	return l, doc.Version, nil
}

// maxAttempts bounds the compare-and-swap retries of one write.
const maxAttempts = 64

// Write applies a write (already checked by [DecodeWrite]) to the agent's
// list and stores the result with compare-and-swap, merging again over a
// fresh read whenever another writer got in first. It returns the stored
// list.
func (p *Plugin) Write(ctx context.Context, agentID string, written []Item) ([]Item, error) {
	for range maxAttempts {
		stored, version, err := p.load(ctx, agentID)
		if err != nil {
			return nil, err
		}
		next := Apply(stored.Todos, written, p.now())
		if len(next) > p.cfg.MaxItems {
			return nil, fmt.Errorf(textResultTooLarge, len(next), len(written), len(next)-len(written), p.cfg.MaxItems)
		}
		data, err := companion.JSON(List{Todos: next})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", textStoreFailed, err)
		}
		_, err = p.docs.Put(ctx, agentID, DocumentName, []byte(data), version)
		switch {
		case err == nil:
			return next, nil
		case errors.Is(err, host.ErrVersionConflict):
			continue
		default:
			return nil, fmt.Errorf("%s: %w", textStoreFailed, err)
		}
	}
	return nil, errors.New(textBusy)
}
