package refhost

import (
	"context"
	"log/slog"

	"go.uber.org/fx"

	"github.com/dshgo/planmode/host"
)

// Module provides the reference host to an fx application: the *Runtime,
// its registries as the host interfaces, the user-question service and the
// store's validators. The program supplies a host.Store and a Model (and
// optionally a *slog.Logger and Settings). Stopping the application stops
// every agent.
var Module = fx.Module("refhost", fx.Provide(NewModule))

// Settings are the optional tuning knobs of the fx module; see Options.
type Settings struct {
	// MaxAttempts bounds the request attempts of one step; zero means
	// DefaultMaxAttempts.
	MaxAttempts int
	// MaxSteps bounds the steps of one turn; zero means DefaultMaxSteps.
	MaxSteps int
	// Checkpoint runs after every turn; see Options.Checkpoint.
	Checkpoint func(ctx context.Context, a *Agent) error
	// Busy and LeaseLost report the turn lease of shared sessions; see
	// Options.Busy and Options.LeaseLost.
	Busy      func(a *Agent, holder host.LeaseHolder, n int)
	LeaseLost func(a *Agent, cause error)
}

// ModuleParams are what [NewModule] takes from the graph.
type ModuleParams struct {
	fx.In

	// Lifecycle gets the stop hook that stops every agent.
	Lifecycle fx.Lifecycle
	// Store is the program's session store.
	Store host.Store
	// Model answers the agents' requests.
	Model Model
	// Logger receives diagnostics; without one they are discarded.
	Logger *slog.Logger `optional:"true"`
	// Settings tune the loop; without them the defaults apply.
	Settings *Settings `optional:"true"`
}

// ModuleResult is what [NewModule] provides.
type ModuleResult struct {
	fx.Out

	// Runtime is the runtime itself, for the program (agents, Execute).
	Runtime *Runtime
	// EventTypes, Sections, Tools, Commands and PreStepChain are the
	// runtime's registries, for plugins.
	EventTypes   host.EventTypes
	Sections     host.Sections
	Tools        host.Tools
	Commands     host.Commands
	PreStepChain host.PreStepChain
	// UserQuestions is the runtime's question service ([Runtime.Questions]).
	UserQuestions host.UserQuestions
	// Validators is the store's validator registry, for plugins that check
	// their events' payloads.
	Validators host.Validators
	// ToolGuards is the runtime's tool-guard chain.
	ToolGuards host.ToolGuards
	// Compactor is the runtime's compaction seam.
	Compactor host.Compactor
}

// NewModule builds the runtime for [Module] and stops its agents when the
// application stops.
func NewModule(p ModuleParams) (ModuleResult, error) {
	o := Options{Store: p.Store, Model: p.Model, Logger: p.Logger}
	if s := p.Settings; s != nil {
		o.MaxAttempts, o.MaxSteps, o.Checkpoint, o.Busy, o.LeaseLost = s.MaxAttempts, s.MaxSteps, s.Checkpoint, s.Busy, s.LeaseLost
	}
	r, err := New(o)
	if err != nil {
		return ModuleResult{}, err
	}
	p.Lifecycle.Append(fx.StopHook(r.Stop))
	return ModuleResult{
		Runtime:       r,
		EventTypes:    r,
		Sections:      r,
		Tools:         r,
		Commands:      r,
		PreStepChain:  r,
		UserQuestions: r.questions,
		Validators:    p.Store,
		ToolGuards:    r,
		Compactor:     r,
	}, nil
}
