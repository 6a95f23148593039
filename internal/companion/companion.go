// Package companion holds what the companion plugins share: starting and
// stopping, their tools, a question that ends when the plugin stops, the
// per-session folds and the errors every companion reports alike.
package companion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"go.uber.org/fx"
)

// Errors every companion reports alike.
var (
	// ErrNeedsPlanMode means the plan-mode plugin is not enabled.
	ErrNeedsPlanMode = errors.New("needs the plan-mode plugin: enable plan-mode under plugins in the deployment file")
	// ErrBadPayload means an event of the plugin is malformed.
	ErrBadPayload = errors.New("malformed payload")
	// ErrAlreadyRunning means Start was called on a running plugin.
	ErrAlreadyRunning = errors.New("already running")
	// ErrNotRunning means the plugin is stopped.
	ErrNotRunning = errors.New("the plugin is not running")
)

// RequirePlanMode returns an fx option that fails the application with
// ErrNeedsPlanMode, naming plugin, when the graph has no plan-mode
// controller.
func RequirePlanMode(plugin string) fx.Option {
	type in struct {
		fx.In
		Controller *planmode.Controller `optional:"true"`
	}
	return fx.Invoke(func(p in) error {
		if p.Controller == nil {
			return fmt.Errorf("%s: %w", plugin, ErrNeedsPlanMode)
		}
		return nil
	})
}

// OnStartStop runs start and stop with lc; without fx (lc nil) the caller
// runs them.
func OnStartStop(lc fx.Lifecycle, start, stop func(context.Context) error) {
	if lc != nil {
		lc.Append(fx.StartStopHook(start, stop))
	}
}

// BadPayload is the payload check's error for event e of plugin: it wraps
// ErrBadPayload and problem.
func BadPayload(plugin string, e host.Event, problem error) error {
	which := fmt.Sprintf("new event %q", e.Type)
	if e.Seq != 0 {
		which = fmt.Sprintf("event %d %q", e.Seq, e.Type)
	}
	return fmt.Errorf("%s: %s: %w: %w", plugin, which, ErrBadPayload, problem)
}

// Lifecycle is a plugin's Start..Stop: what it registered with the host,
// and a context that Stop cancels. The zero value is stopped.
type Lifecycle struct {
	mu     sync.Mutex
	undo   []func()
	ctx    context.Context // nil while stopped
	cancel context.CancelFunc
}

// Registrar adds a plugin's parts to the host while it starts; after the
// first failure it adds nothing more.
type Registrar struct {
	undo []func()
	err  error
}

// Add runs add, which registers what and returns how to undo it.
func (r *Registrar) Add(what string, add func() (undo func(), err error)) {
	if r.err != nil {
		return
	}
	u, err := add()
	if err != nil {
		r.err = fmt.Errorf("%s: %w", what, err)
		return
	}
	r.undo = append(r.undo, u)
}

// LogOnly declares the log-only event types names.
func (r *Registrar) LogOnly(types host.EventTypes, names ...string) {
	for _, n := range names {
		r.Add("event type "+n, func() (func(), error) {
			return types.DeclareEventType(host.EventType{Name: n, Kind: host.LogOnly})
		})
	}
}

// Validator adds the payload check of plugin.
func (r *Registrar) Validator(v host.Validators, plugin string, check host.Validator) {
	r.Add("payload check", func() (func(), error) { return v.AddValidator(plugin, check) })
}

// Section adds a prompt section.
func (r *Registrar) Section(s host.Sections, sec host.Section) {
	r.Add("section", func() (func(), error) { return s.AddSection(sec) })
}

// Tools adds tools.
func (r *Registrar) Tools(reg host.Tools, tools ...host.Tool) {
	for _, t := range tools {
		r.Add("tool "+t.Definition().Name, func() (func(), error) { return reg.AddTool(t) })
	}
}

// Start runs register; when a registration fails, the ones made are
// undone and the error names plugin and what failed.
func (l *Lifecycle) Start(plugin string, register func(r *Registrar)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ctx != nil {
		return fmt.Errorf("%s: start: %w", plugin, ErrAlreadyRunning)
	}
	var r Registrar
	register(&r)
	if r.err != nil {
		undo(r.undo)
		return fmt.Errorf("%s: start: %w", plugin, r.err)
	}
	l.undo = r.undo
	l.ctx, l.cancel = context.WithCancel(context.Background())
	return nil
}

// Stop undoes the registrations in reverse order and cancels the context
// of [Lifecycle.Running]. Stopping a stopped plugin does nothing.
func (l *Lifecycle) Stop(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ctx == nil {
		return nil
	}
	undo(l.undo)
	l.cancel()
	l.undo, l.ctx, l.cancel = nil, nil, nil
	return nil
}

// Running returns a context that Stop cancels, or nil while stopped.
func (l *Lifecycle) Running() context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ctx
}

// Ask puts req through q. When the plugin stops while the question is
// open, or is not running, Ask fails with stopped.
func (l *Lifecycle) Ask(ctx context.Context, q host.UserQuestions, req host.AskRequest, stopped error) ([]host.Answer, error) {
	run := l.Running()
	if run == nil {
		return nil, stopped
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(run, func() { cancel(stopped) })()
	answers, err := q.Ask(ctx, req)
	if run.Err() != nil {
		return nil, stopped
	}
	return answers, err
}

func undo(fs []func()) {
	for _, f := range slices.Backward(fs) {
		f()
	}
}

// Tool is a [host.Tool] made of its definition and a func.
type Tool struct {
	Def host.ToolDefinition
	Run func(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error)
}

// Definition implements [host.Tool].
func (t Tool) Definition() host.ToolDefinition { return t.Def }

// Execute implements [host.Tool].
func (t Tool) Execute(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	return t.Run(ctx, call, input)
}

// JSON encodes v for the model without HTML escaping, so text keeps its
// characters and size.
func JSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// PlanMode reads a "plan/mode" event: ok is false for another event or a
// malformed one.
func PlanMode(e host.Event) (active, ok bool) {
	if e.Type != planmode.EventPlanMode {
		return false, false
	}
	var p struct {
		Active *bool `json:"active"`
	}
	if json.Unmarshal(e.Data, &p) != nil || p.Active == nil {
		return false, false
	}
	return *p.Active, true
}

// QuoteJSON renders raw input for an error message, shortened.
func QuoteJSON(raw json.RawMessage) string {
	return fmt.Sprintf("%q", Cut(string(raw), 200, "…"))
}

// Cut shortens s to at most n bytes at a character boundary and then adds
// more; s as it is when it is short enough.
func Cut(s string, n int, more string) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 {
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size != 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s + more
}

var _ host.Tool = Tool{}
