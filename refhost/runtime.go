package refhost

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hostkit"
)

// DefaultMaxAttempts is the number of request attempts per step when
// Options.MaxAttempts is zero.
const DefaultMaxAttempts = 3

// DefaultMaxSteps is the number of steps one turn may take when
// Options.MaxSteps is zero.
const DefaultMaxSteps = 100

// Options configure a Runtime.
type Options struct {
	// Store is the session store. The runtime itself only reads it through
	// [Runtime.Store]; agents take their session directly.
	Store host.Store
	// Model answers the requests. Required.
	Model Model
	// Logger receives the runtime's diagnostics; nil discards them.
	Logger *slog.Logger
	// MaxAttempts bounds the request attempts of one step (the first try
	// plus retries); zero means DefaultMaxAttempts.
	MaxAttempts int
	// MaxSteps bounds the steps of one turn, so that a model calling tools
	// for ever ends its turn (reason steps-exhausted, with
	// [ErrStepsExhausted]'s message) instead of running until it is
	// cancelled; zero means DefaultMaxSteps.
	MaxSteps int
	// Checkpoint, when set, runs after every turn, after "turn/end" and
	// before the agent becomes idle. Its error is logged. Its ctx is
	// cancelled once the agent is stopped.
	Checkpoint func(ctx context.Context, a *Agent) error
	// Busy, when set, is called when messages given to an agent were
	// handed to the turn another process runs on the same session (it
	// holds the session's turn lease, see [host.TurnLeaser]): n messages
	// are now in the log, for that process's next step to read.
	Busy func(a *Agent, holder host.LeaseHolder, n int)
	// LeaseLost, when set, is called when an agent lost its session's turn
	// lease mid-turn: the turn is cancelled and its writes are refused.
	// cause is [host.TurnLease.Err]: [host.ErrFenced] when another process
	// took the turn over (this one was paused or cut off past the lease),
	// [host.ErrLeaseExpired] when the lease could not be renewed in time
	// (the store unreachable), [host.ErrClosed] when the session closed.
	LeaseLost func(a *Agent, cause error)
}

// Runtime is the reference agent host: it keeps the registries plugins add
// to (the embedded [hostkit.Registries], with the core event types
// declared), runs agents and executes commands. It implements [host.EventTypes],
// [host.Sections], [host.Tools], [host.Commands], [host.PreStepChain],
// [host.ToolGuards] and [host.Compactor].
// All methods are safe for concurrent use.
type Runtime struct {
	*hostkit.Registries

	o         Options // with the defaults filled in
	reqErrs   hostkit.Registry[RequestErrorListener]
	questions *Questions

	mu     sync.Mutex
	agents map[string]*Agent
}

// New returns a runtime with the core event types declared and every other
// registry empty. It does no I/O and starts no goroutines.
func New(o Options) (*Runtime, error) {
	if o.Model == nil {
		return nil, fmt.Errorf("refhost: options: model: %w", ErrBadRegistration)
	}
	if o.MaxAttempts < 0 {
		return nil, fmt.Errorf("refhost: options: max attempts %d: must be 0 (default) or more: %w", o.MaxAttempts, ErrBadRegistration)
	}
	if o.MaxSteps < 0 {
		return nil, fmt.Errorf("refhost: options: max steps %d: must be 0 (default) or more: %w", o.MaxSteps, ErrBadRegistration)
	}
	o.MaxAttempts = cmp.Or(o.MaxAttempts, DefaultMaxAttempts)
	o.MaxSteps = cmp.Or(o.MaxSteps, DefaultMaxSteps)
	o.Logger = cmp.Or(o.Logger, slog.New(slog.DiscardHandler))
	reg, err := hostkit.NewRegistries("refhost", host.CoreEventTypes()...)
	if err != nil {
		return nil, err
	}
	return &Runtime{
		Registries: reg,
		o:          o,
		reqErrs:    hostkit.Registry[RequestErrorListener]{What: "refhost: request-error listener"},
		questions:  &Questions{},
		agents:     map[string]*Agent{},
	}, nil
}

// Store returns the session store from the options (nil when none was given).
func (r *Runtime) Store() host.Store { return r.o.Store }

// Questions returns the user-question service.
func (r *Runtime) Questions() *Questions { return r.questions }

// CommandList returns the registered commands sorted by name, for help
// listings.
func (r *Runtime) CommandList() []host.Command {
	cmds := r.Commands()
	slices.SortFunc(cmds, func(a, b host.Command) int { return strings.Compare(a.Name, b.Name) })
	return cmds
}

// RequestError describes a failed model request, as the request-error
// listeners see it.
type RequestError struct {
	// Agent is the agent whose request failed.
	Agent *Agent
	// Turn, Step and Attempt number the failed request.
	Turn, Step, Attempt int
	// MaxAttempts is the runtime's bound; a retry asked for on the last
	// attempt is not honoured.
	MaxAttempts int
	// Err is the model's error.
	Err error
}

// RequestErrorListener settles a failed request and reports whether the
// step should be retried. A retry is a new proposed step (Attempt + 1) that
// passes through the pre-step chain again and re-derives the request, so
// whatever the listener changed shows up in it. ctx is the turn's context.
type RequestErrorListener func(ctx context.Context, e RequestError) (retry bool)

// AddRequestErrorListener registers l under name. Every listener runs, in
// registration order, after each failed request; the step is retried when
// at least one asks for it and attempts remain.
func (r *Runtime) AddRequestErrorListener(name string, l RequestErrorListener) (func(), error) {
	if l == nil {
		return nil, fmt.Errorf("refhost: request-error listener %q: nil: %w", name, ErrBadRegistration)
	}
	return r.reqErrs.Add(name, l, false)
}

// settleRequestError runs every request-error listener and reports
// whether one asked for a retry.
func (r *Runtime) settleRequestError(ctx context.Context, e RequestError) (retry bool) {
	for _, l := range r.reqErrs.All() {
		retry = l(ctx, e) || retry
	}
	return retry
}

// NewAgent binds an agent to s. An empty id means the session's ID. A
// session that already holds events is resumed: turn numbering continues
// from the log, the first request logs a "resume" header, every tool call
// without a result, anywhere in the log, gets an is-error result, and a
// turn the log left open (the process stopped mid-turn) is closed with a
// "turn/end" of reason error. One runtime binds a session to at most one
// agent.
//
// A session several processes serve (a [host.TurnLeaser]) is repaired only
// under its turn lease: a turn another live process runs is left alone.
// Each turn then takes the lease first and writes under it; while another
// process holds it, the agent's messages are queued in the log for that
// process's turn (see Options.Busy) instead of starting a turn here.
func (r *Runtime) NewAgent(id string, s host.Session) (*Agent, error) {
	if s == nil {
		return nil, fmt.Errorf("refhost: agent %q: session is nil: %w", id, ErrBadRegistration)
	}
	id = cmp.Or(id, s.ID())
	if err := r.CheckGuards(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.agents {
		if a.id == id || a.sess.ID() == s.ID() {
			return nil, fmt.Errorf("refhost: agent %q on session %q: %w", id, s.ID(), host.ErrDuplicate)
		}
	}
	a, err := newAgent(r, id, s)
	if err != nil {
		return nil, err
	}
	r.agents[id] = a
	return a, nil
}

// Stop stops every agent (see [Agent.Stop]) and waits for their turns to
// end, or for ctx.
func (r *Runtime) Stop(ctx context.Context) error {
	r.mu.Lock()
	agents := slices.Collect(maps.Values(r.agents))
	r.mu.Unlock()
	var errs []error
	for _, a := range agents {
		errs = append(errs, a.Stop(ctx))
	}
	return errors.Join(errs...)
}

func (r *Runtime) forget(a *Agent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.agents[a.id] == a {
		delete(r.agents, a.id)
	}
}

var (
	_ host.EventTypes   = (*Runtime)(nil)
	_ host.Sections     = (*Runtime)(nil)
	_ host.Tools        = (*Runtime)(nil)
	_ host.Commands     = (*Runtime)(nil)
	_ host.PreStepChain = (*Runtime)(nil)
	_ host.ToolGuards   = (*Runtime)(nil)
)
