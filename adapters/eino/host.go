package eino

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
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
	*hostkit.Registries

	o Options
}

// New returns a host on o.Store that declares the core event types.
func New(o Options) (*Host, error) {
	if o.Store == nil {
		return nil, fmt.Errorf("%s: options: store: %w", name, ErrNoStore)
	}
	o.Logger = cmp.Or(o.Logger, slog.New(slog.DiscardHandler))
	reg, err := hostkit.NewRegistries(name, host.CoreEventTypes()...)
	if err != nil {
		return nil, err
	}
	return &Host{Registries: reg, o: o}, nil
}

// Validators is the store, the registry of event validators.
func (h *Host) Validators() host.Validators { return h.o.Store }

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

// prompt is what the sections render for one request.
type prompt struct {
	text     string   // the sections joined by a blank line
	sections []string // the names of those that rendered text
}

func (h *Host) render(a host.Agent) prompt {
	sections := h.Sections()
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
