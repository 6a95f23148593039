package eino

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hostkit"
	"github.com/dshgo/planmode/refhost"
)

// Options configure a [Host].
type Options struct {
	// Store keeps the session logs: store.Dir (files), store.Memory or
	// pgstore (PostgreSQL). It is also the registry of event validators.
	Store host.Store
	// Questions is the program's UI: plan reviews and other questions go
	// there, and the asking tool waits for the answer. Without it the
	// questions fail with host.ErrNoProvider (the exit tool refuses).
	Questions host.UserQuestions
	// Logger receives warnings; nil discards them.
	Logger *slog.Logger
}

// Host is the plan-mode host of Eino agents: the registries plan mode and
// its companions register into (pass the Host as their Sections, Tools,
// PreStep, EventTypes, Commands, Guards and Questions, and
// [Host.Validators] as their Validators), the Eino middleware that runs
// them at every chat-model call, and the agents bound to sessions.
type Host struct {
	o Options

	types    hostkit.Registry[host.EventType]
	sections hostkit.Registry[host.Section]
	tools    hostkit.Registry[host.Tool]
	commands hostkit.Registry[host.Command]
	preSteps hostkit.Registry[host.PreStepListener]
	guards   hostkit.Registry[host.Guard]
}

// New returns a host on o.Store that declares the core event types.
func New(o Options) (*Host, error) {
	if o.Store == nil {
		return nil, fmt.Errorf("%s: options: store: %w", name, ErrNoStore)
	}
	o.Logger = cmp.Or(o.Logger, slog.New(slog.DiscardHandler))
	h := &Host{
		o:        o,
		types:    hostkit.Registry[host.EventType]{What: name + ": event type"},
		sections: hostkit.Registry[host.Section]{What: name + ": section"},
		tools:    hostkit.Registry[host.Tool]{What: name + ": tool"},
		commands: hostkit.Registry[host.Command]{What: name + ": command"},
		preSteps: hostkit.Registry[host.PreStepListener]{What: name + ": pre-step listener"},
		guards:   hostkit.Registry[host.Guard]{What: name + ": tool guard"},
	}
	for _, t := range host.CoreEventTypes() {
		if _, err := h.types.Add(t.Name, t, false); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// Validators is the store, the registry of event validators.
func (h *Host) Validators() host.Validators { return h.o.Store }

// DeclareEventType implements host.EventTypes.
func (h *Host) DeclareEventType(t host.EventType) (func(), error) {
	if t.Kind != host.LogOnly && t.Kind != host.Transcript {
		return nil, fmt.Errorf("%s: event type %q: kind %d: %w", name, t.Name, t.Kind, ErrBadRegistration)
	}
	return h.types.Add(t.Name, t, false)
}

// EventKind implements host.EventTypes.
func (h *Host) EventKind(name string) (host.EventKind, bool) {
	t, ok := h.types.Get(name)
	return t.Kind, ok
}

// AddSection implements host.Sections.
func (h *Host) AddSection(s host.Section) (func(), error) {
	if s.Text == nil {
		return nil, fmt.Errorf("%s: section %q: text func is nil: %w", name, s.Name, ErrBadRegistration)
	}
	return h.sections.Add(s.Name, s, false)
}

// AddTool implements host.Tools. A tool reaches an Eino agent through the
// [Host.Middleware] made after it was added.
func (h *Host) AddTool(t host.Tool) (func(), error) {
	if t == nil {
		return nil, fmt.Errorf("%s: tool: nil: %w", name, ErrBadRegistration)
	}
	return h.tools.Add(t.Definition().Name, t, false)
}

// AddCommand implements host.Commands; [Agent.Execute] runs the commands.
func (h *Host) AddCommand(c host.Command) (func(), error) {
	if c.Run == nil || c.Name == "" || strings.ContainsAny(c.Name, "/ \t\n") {
		return nil, fmt.Errorf("%s: command %q: %w", name, c.Name, ErrBadRegistration)
	}
	return h.commands.Add(c.Name, c, false)
}

// AddPreStep implements host.PreStepChain.
func (h *Host) AddPreStep(n string, l host.PreStepListener, prepend bool) (func(), error) {
	if l == nil {
		return nil, fmt.Errorf("%s: pre-step listener %q: nil: %w", name, n, ErrBadRegistration)
	}
	return h.preSteps.Add(n, l, prepend)
}

// AddToolGuard implements host.ToolGuards: every guard runs before each
// tool call of an agent, plan mode's tools and the Eino agent's own.
func (h *Host) AddToolGuard(g host.Guard) (func(), error) {
	if g.Check == nil {
		return nil, fmt.Errorf("%s: tool guard %q: check func is nil: %w", name, g.Name, ErrBadRegistration)
	}
	g.Tools = slices.Clone(g.Tools)
	return h.guards.Add(g.Name, g, false)
}

// Ask implements host.UserQuestions: it checks the request, makes the log
// durable (what led to the question is shown with it) and asks
// Options.Questions.
func (h *Host) Ask(ctx context.Context, req host.AskRequest) ([]host.Answer, error) {
	if err := refhost.ValidateAsk(req); err != nil {
		return nil, err
	}
	if h.o.Questions == nil {
		return nil, fmt.Errorf("%s: ask: %w", name, host.ErrNoProvider)
	}
	if req.Agent != nil {
		if err := host.Sync(req.Agent.Session()); err != nil {
			return nil, fmt.Errorf("%s: ask: %w", name, err)
		}
	}
	return h.o.Questions.Ask(ctx, req)
}

// preStep runs the chain, outermost listener first.
func (h *Host) preStep(ctx context.Context, s host.Step) host.Decision {
	next := host.PreStepNext(func(_ context.Context, s host.Step) host.Decision { return host.Accept(s.Messages) })
	for _, l := range slices.Backward(h.preSteps.All()) {
		inner := next
		next = func(ctx context.Context, s host.Step) host.Decision { return l(ctx, s, inner) }
	}
	return next(ctx, s)
}

// guard runs every guard that is about the tool; the first refusal wins. A
// panicking guard refuses.
func (h *Host) guard(ctx context.Context, cc host.CallContext, tool string, input json.RawMessage) error {
	for _, g := range h.guards.All() {
		if len(g.Tools) > 0 && !slices.Contains(g.Tools, tool) {
			continue
		}
		if err := runGuard(ctx, g.Check, cc, tool, input); err != nil {
			return err
		}
	}
	return nil
}

func runGuard(ctx context.Context, g host.ToolGuard, cc host.CallContext, tool string, input json.RawMessage) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf(refhost.TextGuardPanicked, p)
		}
	}()
	return g(ctx, cc, tool, input)
}

// checkGuards refuses to serve while a guard names a tool that is not
// registered.
func (h *Host) checkGuards() error {
	var errs []error
	for _, g := range h.guards.All() {
		var unknown []string
		for _, t := range g.Tools {
			if _, ok := h.tools.Get(t); !ok {
				unknown = append(unknown, t)
			}
		}
		if len(unknown) > 0 {
			errs = append(errs, &host.UnknownToolsError{Guard: g.Name, Tools: unknown})
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: %w", name, errors.Join(errs...))
	}
	return nil
}

// prompt is what the sections render for one request.
type prompt struct {
	text     string   // the sections joined by a blank line
	sections []string // the names of those that rendered text
}

func (h *Host) render(a host.Agent) prompt {
	sections := h.sections.All()
	slices.SortFunc(sections, func(x, y host.Section) int {
		return cmp.Or(cmp.Compare(x.Order, y.Order), strings.Compare(x.Name, y.Name))
	})
	p := prompt{sections: []string{}}
	var texts []string
	for _, s := range sections {
		if t := s.Text(host.AssembleContext{Agent: a}); t != "" {
			texts = append(texts, t)
			p.sections = append(p.sections, s.Name)
		}
	}
	p.text = strings.Join(texts, "\n\n")
	return p
}

// toolsDigest is the digest of the hosted tools' definitions, sorted by
// name, as JSON.
func (h *Host) toolsDigest() string {
	defs := make([]host.ToolDefinition, 0)
	for _, t := range h.tools.All() {
		defs = append(defs, t.Definition())
	}
	slices.SortFunc(defs, func(x, y host.ToolDefinition) int { return strings.Compare(x.Name, y.Name) })
	js, _ := json.Marshal(defs) // definitions are plain JSON values
	return digest(string(js))
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

var (
	_ host.EventTypes    = (*Host)(nil)
	_ host.Sections      = (*Host)(nil)
	_ host.Tools         = (*Host)(nil)
	_ host.Commands      = (*Host)(nil)
	_ host.PreStepChain  = (*Host)(nil)
	_ host.ToolGuards    = (*Host)(nil)
	_ host.UserQuestions = (*Host)(nil)
)
