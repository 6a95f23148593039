package hostkit_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hostkit"
)

// kitTool is a tool with a fixed definition.
type kitTool host.ToolDefinition

func (t kitTool) Definition() host.ToolDefinition { return host.ToolDefinition(t) }

func (kitTool) Execute(context.Context, host.CallContext, json.RawMessage) (string, error) {
	return "", nil
}

func newRegistries(t *testing.T) *hostkit.Registries {
	t.Helper()
	r, err := hostkit.NewRegistries("kit", host.CoreEventTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRegistrations(t *testing.T) {
	text := func(host.AssembleContext) string { return "" }
	run := func(context.Context, host.Invocation) (string, error) { return "", nil }
	pre := func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision { return next(ctx, s) }
	check := func(context.Context, host.CallContext, string, json.RawMessage) error { return nil }
	tests := []struct {
		name string
		give func(r *hostkit.Registries) (func(), error)
		want error // nil: the registration succeeds
	}{
		{name: "an event type registers", give: func(r *hostkit.Registries) (func(), error) {
			return r.DeclareEventType(host.EventType{Name: "plan/mode", Kind: host.LogOnly})
		}},
		{name: "an event type needs a name", give: func(r *hostkit.Registries) (func(), error) {
			return r.DeclareEventType(host.EventType{Kind: host.Transcript})
		}, want: hostkit.ErrEmptyName},
		{name: "an event type needs a known kind", give: func(r *hostkit.Registries) (func(), error) {
			return r.DeclareEventType(host.EventType{Name: "x/y", Kind: 7})
		}, want: hostkit.ErrBadRegistration},
		{name: "a type declared by NewRegistries is taken", give: func(r *hostkit.Registries) (func(), error) {
			return r.DeclareEventType(host.EventType{Name: host.TypeTurnStart, Kind: host.LogOnly})
		}, want: host.ErrDuplicate},
		{name: "a section registers", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddSection(host.Section{Name: "s", Text: text})
		}},
		{name: "a section needs a text func", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddSection(host.Section{Name: "s"})
		}, want: hostkit.ErrBadRegistration},
		{name: "a section needs a name", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddSection(host.Section{Text: text})
		}, want: hostkit.ErrEmptyName},
		{name: "a tool registers", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddTool(kitTool{Name: "read", InputSchema: json.RawMessage(`{"type":"object"}`)})
		}},
		{name: "a tool must not be nil", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddTool(nil)
		}, want: hostkit.ErrBadRegistration},
		{name: "a tool schema must be JSON", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddTool(kitTool{Name: "bad", InputSchema: json.RawMessage(`{not json`)})
		}, want: hostkit.ErrBadRegistration},
		{name: "a tool needs a name", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddTool(kitTool{})
		}, want: hostkit.ErrEmptyName},
		{name: "a command registers", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddCommand(host.Command{Name: "plan", Run: run})
		}},
		{name: "a command name has no space", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddCommand(host.Command{Name: "a b", Run: run})
		}, want: hostkit.ErrBadRegistration},
		{name: "a command name has no other white space", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddCommand(host.Command{Name: "a\u00a0b", Run: run})
		}, want: hostkit.ErrBadRegistration},
		{name: "a command name has no slash", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddCommand(host.Command{Name: "/a", Run: run})
		}, want: hostkit.ErrBadRegistration},
		{name: "a command needs a run func", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddCommand(host.Command{Name: "a"})
		}, want: hostkit.ErrBadRegistration},
		{name: "a command needs a name", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddCommand(host.Command{Run: run})
		}, want: hostkit.ErrEmptyName},
		{name: "a pre-step listener registers", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddPreStep("p", pre, true)
		}},
		{name: "a pre-step listener must not be nil", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddPreStep("p", nil, false)
		}, want: hostkit.ErrBadRegistration},
		{name: "a pre-step listener needs a name", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddPreStep("", pre, false)
		}, want: hostkit.ErrEmptyName},
		{name: "a tool guard registers", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddToolGuard(host.Guard{Name: "g", Check: check})
		}},
		{name: "a tool guard needs a check func", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddToolGuard(host.Guard{Name: "g"})
		}, want: hostkit.ErrBadRegistration},
		{name: "a tool guard needs a name", give: func(r *hostkit.Registries) (func(), error) {
			return r.AddToolGuard(host.Guard{Check: check})
		}, want: hostkit.ErrEmptyName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRegistries(t)
			unregister, err := tt.give(r)
			if tt.want == nil {
				if err != nil || unregister == nil {
					t.Fatalf("err = %v, unregister nil %v; want a registration", err, unregister == nil)
				}
				if _, err := tt.give(r); !errors.Is(err, host.ErrDuplicate) {
					t.Errorf("again: err = %v, want ErrDuplicate", err)
				}
				unregister()
				unregister() // repeated: a no-op
				if _, err := tt.give(r); err != nil {
					t.Errorf("after unregister: err = %v", err)
				}
				return
			}
			if !errors.Is(err, tt.want) || !strings.HasPrefix(err.Error(), "kit: ") {
				t.Errorf("err = %v, want %v prefixed with the registries' name", err, tt.want)
			}
			if !errors.Is(err, host.ErrDuplicate) && !errors.Is(err, hostkit.ErrBadRegistration) {
				t.Errorf("err = %v, not an ErrBadRegistration", err)
			}
			if unregister != nil {
				t.Error("a failed registration returned an unregister func")
			}
		})
	}
}

func TestNewRegistries(t *testing.T) {
	tests := []struct {
		name  string
		give  []host.EventType
		want  error
		kinds map[string]host.EventKind
	}{
		{name: "no types declares none", kinds: map[string]host.EventKind{}},
		{name: "the types given are declared", give: host.CoreEventTypes()[:1],
			kinds: map[string]host.EventKind{host.CoreEventTypes()[0].Name: host.CoreEventTypes()[0].Kind}},
		{name: "a type of unknown kind is refused", give: []host.EventType{{Name: "x/y", Kind: 9}}, want: hostkit.ErrBadRegistration},
		{name: "a type given twice is refused", give: []host.EventType{{Name: "x/y"}, {Name: "x/y"}}, want: host.ErrDuplicate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := hostkit.NewRegistries("kit", tt.give...)
			if tt.want != nil {
				if !errors.Is(err, tt.want) || r != nil {
					t.Fatalf("registries %v, err = %v; want %v", r, err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]host.EventKind{}
			for _, et := range r.EventTypes() {
				got[et.Name] = et.Kind
				if k, ok := r.EventKind(et.Name); !ok || k != et.Kind {
					t.Errorf("EventKind(%q) = %v, %v", et.Name, k, ok)
				}
			}
			if len(got) != len(tt.kinds) {
				t.Errorf("types = %v, want %v", got, tt.kinds)
			}
		})
	}
}

func TestCheckGuards(t *testing.T) {
	check := func(context.Context, host.CallContext, string, json.RawMessage) error { return nil }
	tests := []struct {
		name  string
		tools []string // registered
		guard []string // the guard's Tools
		want  []string // unknown tools reported; nil: no error
	}{
		{name: "a guard about no tool is fine", guard: nil},
		{name: "a guard about registered tools is fine", tools: []string{"read", "write"}, guard: []string{"write"}},
		{name: "unknown guarded tools are named", tools: []string{"read"}, guard: []string{"write", "read", "rm"}, want: []string{"write", "rm"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRegistries(t)
			for _, name := range tt.tools {
				if _, err := r.AddTool(kitTool{Name: name}); err != nil {
					t.Fatal(err)
				}
			}
			guarded := slices.Clone(tt.guard)
			if _, err := r.AddToolGuard(host.Guard{Name: "g", Check: check, Tools: guarded}); err != nil {
				t.Fatal(err)
			}
			if len(guarded) > 0 {
				guarded[0] = "changed after registering" // the registry keeps its own copy
			}
			err := r.CheckGuards()
			if tt.want == nil {
				if err != nil {
					t.Errorf("err = %v", err)
				}
				return
			}
			var ute *host.UnknownToolsError
			if !errors.Is(err, host.ErrUnknownGuardedTool) || !errors.As(err, &ute) || ute.Guard != "g" || !slices.Equal(ute.Tools, tt.want) {
				t.Errorf("err = %v (%+v), want unknown tools %v of guard g", err, ute, tt.want)
			}
		})
	}
}

func TestRunPreSteps(t *testing.T) {
	var calls []string
	listener := func(name string) host.PreStepListener {
		return func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
			calls = append(calls, name)
			return next(ctx, s)
		}
	}
	r := newRegistries(t)
	for _, add := range []struct {
		name    string
		prepend bool
	}{{"inner", false}, {"outer", true}, {"outermost", true}, {"innermost", false}} {
		if _, err := r.AddPreStep(add.name, listener(add.name), add.prepend); err != nil {
			t.Fatal(err)
		}
	}
	msgs := []host.Message{{Content: []host.Block{{Type: "text", Text: "hi"}}}}
	tests := []struct {
		name  string
		inner host.PreStepNext
		want  bool // accepted
	}{
		{name: "a nil innermost link accepts the step's messages", want: true},
		{name: "the innermost link given decides", inner: func(context.Context, host.Step) host.Decision { return host.Reject("no") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls = nil
			d := r.RunPreSteps(context.Background(), host.Step{Messages: msgs}, tt.inner)
			if d.Accepted != tt.want || tt.want && len(d.Messages) != 1 {
				t.Errorf("decision %+v, want accepted %v with the step's messages", d, tt.want)
			}
			if want := []string{"outermost", "outer", "inner", "innermost"}; !slices.Equal(calls, want) {
				t.Errorf("listeners ran %v, want %v", calls, want)
			}
		})
	}
}

func TestReadBack(t *testing.T) {
	r := newRegistries(t)
	text := func(host.AssembleContext) string { return "" }
	for _, s := range []host.Section{{Name: "b", Order: 1, Text: text}, {Name: "c", Text: text}, {Name: "a", Order: 1, Text: text}} {
		if _, err := r.AddSection(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"write", "read"} {
		if _, err := r.AddTool(kitTool{Name: name, InputSchema: json.RawMessage(`{ "type": "object" }`)}); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, s := range r.Sections() {
		names = append(names, s.Name)
	}
	if want := []string{"c", "a", "b"}; !slices.Equal(names, want) {
		t.Errorf("sections %v, want %v (by Order, then Name)", names, want)
	}
	if ts := r.Tools(); len(ts) != 2 || ts[0].Definition().Name != "write" {
		t.Errorf("tools %v, want write then read (registration order)", ts)
	}
	if tl, ok := r.Tool("read"); !ok || tl.Definition().Name != "read" {
		t.Errorf("Tool(read) = %v, %v", tl, ok)
	}
	defs, digest := r.Catalog()
	js, err := json.Marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(js)
	if len(defs) != 2 || defs[0].Name != "read" || digest != hex.EncodeToString(sum[:]) {
		t.Errorf("catalog %+v, digest %s; want read, write and the SHA-256 of their JSON array", defs, digest)
	}
}
