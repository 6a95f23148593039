package hostkit

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/dshgo/planmode/host"
)

// Registries are the registries plan mode and its companions register
// into, with their checks: event types, prompt sections, tools, commands,
// pre-step listeners and tool guards. A host embeds them (from
// [NewRegistries]) and so implements [host.EventTypes], [host.Sections],
// [host.Tools], [host.Commands], [host.PreStepChain] and [host.ToolGuards];
// the other methods are what its loop reads. A refused registration is
// [ErrEmptyName], [host.ErrDuplicate] or [ErrBadRegistration]. All methods
// are safe for concurrent use.
type Registries struct {
	name     string
	types    Registry[host.EventType]
	sections Registry[host.Section]
	tools    Registry[tool]
	commands Registry[host.Command]
	preSteps Registry[PreStep]
	guards   Registry[host.Guard]
}

// tool is a registered tool and its definition, read once.
type tool struct {
	tool host.Tool
	def  host.ToolDefinition
	js   []byte // the definition's canonical JSON, for the catalog digest
}

// PreStep is a registered pre-step listener with its name.
type PreStep struct {
	Name     string
	Listener host.PreStepListener
}

// NewRegistries returns registries holding the event types types (for a
// host's loop, [host.CoreEventTypes]) and nothing else. Their errors start
// with name, the host's, for example "refhost".
func NewRegistries(name string, types ...host.EventType) (*Registries, error) {
	r := &Registries{
		name:     name,
		types:    Registry[host.EventType]{What: name + ": event type"},
		sections: Registry[host.Section]{What: name + ": section"},
		tools:    Registry[tool]{What: name + ": tool"},
		commands: Registry[host.Command]{What: name + ": command"},
		preSteps: Registry[PreStep]{What: name + ": pre-step listener"},
		guards:   Registry[host.Guard]{What: name + ": tool guard"},
	}
	for _, t := range types {
		if _, err := r.DeclareEventType(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// DeclareEventType implements [host.EventTypes]. The kind must be
// [host.LogOnly] or [host.Transcript].
func (r *Registries) DeclareEventType(t host.EventType) (func(), error) {
	if t.Kind != host.LogOnly && t.Kind != host.Transcript {
		return nil, fmt.Errorf("%s: event type %q: kind %d: want log-only or transcript: %w", r.name, t.Name, t.Kind, ErrBadRegistration)
	}
	return r.types.Add(t.Name, t, false)
}

// EventKind implements [host.EventTypes].
func (r *Registries) EventKind(name string) (host.EventKind, bool) {
	t, ok := r.types.Get(name)
	return t.Kind, ok
}

// EventTypes returns the declared event types in declaration order.
func (r *Registries) EventTypes() []host.EventType { return r.types.All() }

// AddSection implements [host.Sections]. The section needs a text func.
func (r *Registries) AddSection(s host.Section) (func(), error) {
	if s.Text == nil {
		return nil, fmt.Errorf("%s: section %q: text func is nil: %w", r.name, s.Name, ErrBadRegistration)
	}
	return r.sections.Add(s.Name, s, false)
}

// Sections returns the registered sections in prompt order, sorted by
// (Order, Name).
func (r *Registries) Sections() []host.Section {
	ss := r.sections.All()
	slices.SortFunc(ss, func(x, y host.Section) int {
		return cmp.Or(cmp.Compare(x.Order, y.Order), strings.Compare(x.Name, y.Name))
	})
	return ss
}

// AddTool implements [host.Tools]. The tool's definition is read once,
// here; its schemas must be valid JSON.
func (r *Registries) AddTool(t host.Tool) (func(), error) {
	if t == nil {
		return nil, fmt.Errorf("%s: tool: nil: %w", r.name, ErrBadRegistration)
	}
	def := t.Definition()
	js, err := json.Marshal(def)
	if err != nil {
		return nil, fmt.Errorf("%s: tool %q: definition: %w: %w", r.name, def.Name, ErrBadRegistration, err)
	}
	return r.tools.Add(def.Name, tool{tool: t, def: def, js: js}, false)
}

// Tool returns the registered tool with that name.
func (r *Registries) Tool(name string) (host.Tool, bool) {
	t, ok := r.tools.Get(name)
	return t.tool, ok
}

// Tools returns the registered tools in the order they were added.
func (r *Registries) Tools() []host.Tool {
	all := r.tools.All()
	ts := make([]host.Tool, len(all))
	for i, t := range all {
		ts[i] = t.tool
	}
	return ts
}

// Catalog returns the tool catalog, the registered tools' definitions
// sorted by name, and its digest: the hex SHA-256 of the catalog as a JSON
// array.
func (r *Registries) Catalog() (defs []host.ToolDefinition, digest string) {
	ts := r.tools.All()
	slices.SortFunc(ts, func(x, y tool) int { return strings.Compare(x.def.Name, y.def.Name) })
	defs = make([]host.ToolDefinition, len(ts))
	js := make([]string, len(ts))
	for i, t := range ts {
		defs[i], js[i] = t.def, string(t.js)
	}
	sum := sha256.Sum256([]byte("[" + strings.Join(js, ",") + "]"))
	return defs, hex.EncodeToString(sum[:])
}

// AddCommand implements [host.Commands]. The name is given without the
// slash and must not contain white space or a slash; the command needs a
// run func.
func (r *Registries) AddCommand(c host.Command) (func(), error) {
	if strings.ContainsFunc(c.Name, func(r rune) bool { return r == '/' || unicode.IsSpace(r) }) {
		return nil, fmt.Errorf("%s: command %q: name must not contain white space or '/': %w", r.name, c.Name, ErrBadRegistration)
	}
	if c.Run == nil {
		return nil, fmt.Errorf("%s: command %q: run func is nil: %w", r.name, c.Name, ErrBadRegistration)
	}
	return r.commands.Add(c.Name, c, false)
}

// Command returns the registered command with that name.
func (r *Registries) Command(name string) (host.Command, bool) { return r.commands.Get(name) }

// Commands returns the registered commands in the order they were added.
func (r *Registries) Commands() []host.Command { return r.commands.All() }

// AddPreStep implements [host.PreStepChain]. Listeners added with prepend
// run outermost, the latest prepend first; the others run after them in
// registration order.
func (r *Registries) AddPreStep(name string, l host.PreStepListener, prepend bool) (func(), error) {
	if l == nil {
		return nil, fmt.Errorf("%s: pre-step listener %q: nil: %w", r.name, name, ErrBadRegistration)
	}
	return r.preSteps.Add(name, PreStep{Name: name, Listener: l}, prepend)
}

// PreSteps returns the registered pre-step listeners, outermost first.
func (r *Registries) PreSteps() []PreStep { return r.preSteps.All() }

// RunPreSteps runs the pre-step chain on s, outermost listener first. Its
// innermost link is inner, or, when inner is nil, one that accepts the
// step's messages.
func (r *Registries) RunPreSteps(ctx context.Context, s host.Step, inner host.PreStepNext) host.Decision {
	next := inner
	if next == nil {
		next = func(_ context.Context, s host.Step) host.Decision { return host.Accept(s.Messages) }
	}
	for _, p := range slices.Backward(r.PreSteps()) {
		in := next
		next = func(ctx context.Context, s host.Step) host.Decision { return p.Listener(ctx, s, in) }
	}
	return next(ctx, s)
}

// AddToolGuard implements [host.ToolGuards]. The guard needs a check func.
func (r *Registries) AddToolGuard(g host.Guard) (func(), error) {
	if g.Check == nil {
		return nil, fmt.Errorf("%s: tool guard %q: check func is nil: %w", r.name, g.Name, ErrBadRegistration)
	}
	g.Tools = slices.Clone(g.Tools)
	return r.guards.Add(g.Name, g, false)
}

// Guards returns the registered tool guards in registration order, the
// order they run in.
func (r *Registries) Guards() []host.Guard { return r.guards.All() }

// TextGuardPanicked is the refusal of a tool call whose guard panicked;
// %v is the panic value. A broken guard fails closed.
const TextGuardPanicked = "the tool guard crashed, so the call was not run: %v"

// RunGuards runs the guard chain for one call, as [host.ToolGuards] says:
// every guard, in registration order, whatever tools it names, until the
// first refusal, which it returns. A panicking guard refuses
// ([TextGuardPanicked]).
func (r *Registries) RunGuards(ctx context.Context, cc host.CallContext, tool string, input json.RawMessage) error {
	for _, g := range r.Guards() {
		if err := runGuard(ctx, g.Check, cc, tool, input); err != nil {
			return err
		}
	}
	return nil
}

// runGuard runs one guard, turning a panic into a refusal.
func runGuard(ctx context.Context, g host.ToolGuard, cc host.CallContext, tool string, input json.RawMessage) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf(TextGuardPanicked, p)
		}
	}()
	return g(ctx, cc, tool, input)
}

// CheckGuards reports, for every registered guard, the tools it names that
// no registered tool has ([host.ErrUnknownGuardedTool]). A host runs it when
// it starts serving an agent and refuses to serve on an error; programs may
// run it after registering everything, as a configuration check.
func (r *Registries) CheckGuards() error {
	var errs []error
	for _, g := range r.Guards() {
		var unknown []string
		for _, name := range g.Tools {
			if _, ok := r.tools.Get(name); !ok {
				unknown = append(unknown, name)
			}
		}
		if len(unknown) > 0 {
			errs = append(errs, &host.UnknownToolsError{Guard: g.Name, Tools: unknown})
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: %w", r.name, errors.Join(errs...))
	}
	return nil
}

var (
	_ host.EventTypes   = (*Registries)(nil)
	_ host.Sections     = (*Registries)(nil)
	_ host.Tools        = (*Registries)(nil)
	_ host.Commands     = (*Registries)(nil)
	_ host.PreStepChain = (*Registries)(nil)
	_ host.ToolGuards   = (*Registries)(nil)
)
