package plansteps

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"go.uber.org/fx"
)

// Errors of the plugin's lifecycle.
var (
	// ErrMissingDependency means New was given no value for a required host
	// registry.
	ErrMissingDependency = errors.New(textMissingDependency)
	// ErrNotRunning means the plugin is not started.
	ErrNotRunning = errors.New(textNotRunning)
	// ErrAlreadyRunning means Start was called on a running plugin.
	ErrAlreadyRunning = errors.New(textAlreadyRunning)
)

// Module is the plugin as an fx module. It needs a [Config], the host's
// registries and the plan-mode plugin, to which it supplies its exit
// extension through the [planmode.ExitExtensionGroup] value group.
var Module = fx.Module(PluginName,
	fx.Provide(New),
	// The plan-mode controller consumes the extension; requiring it here
	// makes a graph without plan-mode fail with the missing type.
	fx.Invoke(func(*Plugin, *planmode.Controller) {}),
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
	cfg        Config
	sections   host.Sections
	tools      host.Tools
	validators host.Validators
	types      host.EventTypes
	questions  host.UserQuestions

	lifecycle sync.Mutex
	run       atomic.Pointer[run]
}

// New builds the plugin and its exit extension. It does no I/O and
// registers nothing until Start.
func New(p Params) (Result, error) {
	if err := p.Config.Validate(); err != nil {
		return Result{}, err
	}
	var missing []string
	for name, v := range map[string]any{"Sections": p.Sections, "Tools": p.Tools, "Validators": p.Validators, "EventTypes": p.EventTypes} {
		if v == nil || reflect.ValueOf(v).IsZero() {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return Result{}, fmt.Errorf("%s: %w: %v", PluginName, ErrMissingDependency, missing)
	}
	pl := &Plugin{
		cfg: p.Config, sections: p.Sections, tools: p.Tools, validators: p.Validators,
		types: p.EventTypes, questions: p.Questions,
	}
	if p.Lifecycle != nil {
		p.Lifecycle.Append(fx.StartStopHook(pl.Start, pl.Stop))
	}
	return Result{Plugin: pl, Exit: pl.exitExtension()}, nil
}

// Start registers the event types, the payload check, the section and the
// tools; on a failure it undoes what it did.
func (p *Plugin) Start(context.Context) error {
	p.lifecycle.Lock()
	defer p.lifecycle.Unlock()
	if p.run.Load() != nil {
		return fmt.Errorf("%s: start: %w", PluginName, ErrAlreadyRunning)
	}
	r := &run{done: make(chan struct{}), sessions: map[host.Session]*sessionState{}}
	type reg struct {
		what string
		add  func() (func(), error)
	}
	var regs []reg
	for _, t := range eventTypes() {
		regs = append(regs, reg{"event type " + t.Name, func() (func(), error) { return p.types.DeclareEventType(t) }})
	}
	regs = append(regs, reg{"payload check", func() (func(), error) {
		return p.validators.AddValidator(PluginName, CheckPayload)
	}},
		reg{"section", func() (func(), error) { return p.sections.AddSection(p.section()) }})
	for _, t := range p.newTools() {
		regs = append(regs, reg{"tool " + t.Definition().Name, func() (func(), error) { return p.tools.AddTool(t) }})
	}
	for _, g := range regs {
		undo, err := g.add()
		if err != nil {
			r.stop()
			return fmt.Errorf("%s: start: %s: %w", PluginName, g.what, err)
		}
		r.undo = append(r.undo, undo)
	}
	p.run.Store(r)
	return nil
}

// Stop undoes every registration, drops the sessions' folds and fails a
// step-change question that is still open.
func (p *Plugin) Stop(context.Context) error {
	p.lifecycle.Lock()
	defer p.lifecycle.Unlock()
	if r := p.run.Swap(nil); r != nil {
		r.stop()
	}
	return nil
}

// State returns the session's plan state: the fold the plugin keeps when it
// serves the session, else a fold of the log.
func (p *Plugin) State(sess host.Session) State {
	if r := p.run.Load(); r != nil {
		if st, err := r.state(sess); err == nil {
			return *st.cur.Load()
		}
	}
	return Fold(sess.Events())
}

// run is one Start..Stop period.
type run struct {
	done chan struct{}
	undo []func()

	mu       sync.Mutex
	closed   bool
	sessions map[host.Session]*sessionState
}

// stop undoes the registrations and drops the sessions.
func (r *run) stop() {
	for _, u := range slices.Backward(r.undo) {
		u()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	close(r.done)
	for _, st := range r.sessions {
		st.unsubscribe()
	}
	r.sessions = nil
}

// sessionState is the fold of one session, kept current by a
// subscription: each event is applied once, as it is appended.
type sessionState struct {
	sess        host.Session
	unsubscribe func()
	cur         atomic.Pointer[State]
}

// state returns the session's fold, subscribing on first sight. It must not
// run inside a session callback.
func (r *run) state(sess host.Session) (*sessionState, error) {
	if sess == nil {
		return nil, errors.New(textNoAgent)
	}
	if !reflect.TypeOf(sess).Comparable() {
		return nil, fmt.Errorf(textNotComparable, sess)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrNotRunning
	}
	if st, ok := r.sessions[sess]; ok {
		return st, nil
	}
	st := &sessionState{sess: sess}
	st.cur.Store(&State{})
	st.unsubscribe = sess.Subscribe(0, func(e host.Event) {
		next := Apply(*st.cur.Load(), e)
		st.cur.Store(&next)
	})
	r.sessions[sess] = st
	return st, nil
}

// load returns the current fold.
func (s *sessionState) load() State { return *s.cur.Load() }
