package refhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

func TestRegistrations(t *testing.T) {
	text := func(host.AssembleContext) string { return "" }
	run := func(context.Context, host.Invocation) (string, error) { return "", nil }
	pre := func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision { return next(ctx, s) }
	tests := []struct {
		name string
		add  func(r *refhost.Runtime) (func(), error)
		want error
	}{
		{name: "a core event type is taken", add: func(r *refhost.Runtime) (func(), error) {
			return r.DeclareEventType(host.EventType{Name: host.TypeTurnStart})
		}, want: host.ErrDuplicate},
		{name: "an event type needs a name", add: func(r *refhost.Runtime) (func(), error) {
			return r.DeclareEventType(host.EventType{})
		}, want: refhost.ErrEmptyName},
		{name: "an event type needs a known kind", add: func(r *refhost.Runtime) (func(), error) {
			return r.DeclareEventType(host.EventType{Name: "x/y", Kind: 7})
		}, want: refhost.ErrBadRegistration},
		{name: "a section needs a text func", add: func(r *refhost.Runtime) (func(), error) {
			return r.AddSection(host.Section{Name: "s"})
		}, want: refhost.ErrBadRegistration},
		{name: "a section needs a name", add: func(r *refhost.Runtime) (func(), error) {
			return r.AddSection(host.Section{Text: text})
		}, want: refhost.ErrEmptyName},
		{name: "a tool must not be nil", add: func(r *refhost.Runtime) (func(), error) {
			return r.AddTool(nil)
		}, want: refhost.ErrBadRegistration},
		{name: "a tool schema must be JSON", add: func(r *refhost.Runtime) (func(), error) {
			return r.AddTool(badSchemaTool{})
		}, want: nil},
		{name: "a command name has no space", add: func(r *refhost.Runtime) (func(), error) {
			return r.AddCommand(host.Command{Name: "a b", Run: run})
		}, want: refhost.ErrBadRegistration},
		{name: "a command name has no slash", add: func(r *refhost.Runtime) (func(), error) {
			return r.AddCommand(host.Command{Name: "/a", Run: run})
		}, want: refhost.ErrBadRegistration},
		{name: "a command needs a run func", add: func(r *refhost.Runtime) (func(), error) {
			return r.AddCommand(host.Command{Name: "a"})
		}, want: refhost.ErrBadRegistration},
		{name: "a pre-step listener must not be nil", add: func(r *refhost.Runtime) (func(), error) {
			return r.AddPreStep("p", nil, false)
		}, want: refhost.ErrBadRegistration},
		{name: "a pre-step listener needs a name", add: func(r *refhost.Runtime) (func(), error) {
			return r.AddPreStep("", pre, true)
		}, want: refhost.ErrEmptyName},
		{name: "a request-error listener must not be nil", add: func(r *refhost.Runtime) (func(), error) {
			return r.AddRequestErrorListener("l", nil)
		}, want: refhost.ErrBadRegistration},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			unregister, err := tt.add(f.rt)
			if err == nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			if unregister != nil {
				t.Error("a failed registration returned an unregister func")
			}
		})
	}
}

type badSchemaTool struct{}

func (badSchemaTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: "bad", InputSchema: json.RawMessage(`{not json`)}
}

func (badSchemaTool) Execute(context.Context, host.CallContext, json.RawMessage) (string, error) {
	return "", nil
}

func TestUnregister(t *testing.T) {
	f := newFixture(t)
	section := func(text string) host.Section {
		return host.Section{Name: "s", Text: func(host.AssembleContext) string { return text }}
	}
	first := must[func()](t)(f.rt.AddSection(section("first")))
	if _, err := f.rt.AddSection(section("again")); !errors.Is(err, host.ErrDuplicate) {
		t.Fatalf("duplicate: err = %v", err)
	}
	first()
	second := must[func()](t)(f.rt.AddSection(section("second")))
	first() // stale and repeated: must not remove the second registration
	if got := f.rt.Assemble(host.AssembleContext{}).System; got != "second" {
		t.Errorf("system = %q, want %q", got, "second")
	}
	second()
	if got := f.rt.Assemble(host.AssembleContext{}).System; got != "" {
		t.Errorf("system = %q after unregister", got)
	}

	undeclare := must[func()](t)(f.rt.DeclareEventType(host.EventType{Name: "plan/mode", Kind: host.LogOnly}))
	if k, ok := f.rt.EventKind("plan/mode"); !ok || k != host.LogOnly {
		t.Errorf("kind = %v, %v", k, ok)
	}
	undeclare()
	if _, ok := f.rt.EventKind("plan/mode"); ok {
		t.Error("still declared after unregister")
	}
	for _, ct := range host.CoreEventTypes() {
		if k, ok := f.rt.EventKind(ct.Name); !ok || k != ct.Kind {
			t.Errorf("core type %s: kind %v, %v; want %v", ct.Name, k, ok, ct.Kind)
		}
	}

	cmd := must[func()](t)(f.rt.AddCommand(host.Command{Name: "b", Run: func(context.Context, host.Invocation) (string, error) { return "", nil }}))
	must[func()](t)(f.rt.AddCommand(host.Command{Name: "a", Run: func(context.Context, host.Invocation) (string, error) { return "", nil }}))
	if l := f.rt.CommandList(); len(l) != 2 || l[0].Name != "a" {
		t.Errorf("commands = %+v", l)
	}
	cmd()
	if handled, _, _ := f.rt.Execute(context.Background(), f.agent(), "/b", nil); handled {
		t.Error("an unregistered command was handled")
	}
}

func TestNewOptions(t *testing.T) {
	if _, err := refhost.New(refhost.Options{}); !errors.Is(err, refhost.ErrBadRegistration) {
		t.Errorf("no model: err = %v", err)
	}
	f := newFixture(t)
	if _, err := refhost.New(refhost.Options{Model: f.model, MaxAttempts: -1}); !errors.Is(err, refhost.ErrBadRegistration) {
		t.Errorf("negative attempts: err = %v", err)
	}
	if f.rt.Store() != f.store {
		t.Errorf("store %v, want the options' store", f.rt.Store())
	}
}
