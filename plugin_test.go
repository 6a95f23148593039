package planmode_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

func TestPayloadCheckRejectsMalformedMarkersOnAppend(t *testing.T) {
	const mode, cancel = planmode.EventPlanMode, planmode.EventPlanCancel
	tests := []struct {
		typ  string
		name string
		give string
		want string
	}{
		{mode, "a string active is rejected", `{"active":"yes"}`, `active is "yes"; want true or false`},
		{mode, "a null active is rejected", `{"active":null}`, `active is null; want true or false`},
		{mode, "a number active is rejected", `{"active":1}`, `active is 1; want true or false`},
		{mode, "a missing active is rejected", `{"mode":"plan"}`, `active is missing`},
		{mode, "a non-object payload is rejected", `[true]`, `payload [true] is not a JSON object`},
		{mode, "an empty payload is rejected", ``, `payload is empty`},
		{cancel, "an unknown selection is rejected", `{"cancelled":"maybe"}`, `cancelled is "maybe"; want "active" or "inactive"`},
		{cancel, "a selection in another case is rejected", `{"cancelled":"Active"}`, `cancelled is "Active"`},
		{cancel, "none is no selection to cancel", `{"cancelled":"none"}`, `cancelled is "none"`},
		{cancel, "a boolean is rejected", `{"cancelled":true}`, `cancelled is true`},
		{cancel, "a missing field is rejected", `{"active":false}`, `cancelled is missing`},
		{cancel, "a non-object payload is rejected", `"active"`, `payload "active" is not a JSON object`},
		{cancel, "an empty payload is rejected", ``, `payload is empty`},
	}
	for _, tt := range tests {
		t.Run(tt.typ+": "+tt.name, func(t *testing.T) {
			_, _, a := startAgent(t)
			_, err := a.Session().Append(ev(tt.typ, tt.give))
			if !errors.Is(err, planmode.ErrBadPayload) {
				t.Fatalf("Append error = %v, want ErrBadPayload", err)
			}
			for _, part := range []string{`plan-mode: `, `"` + tt.typ + `"`, tt.want} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q does not contain %q", err, part)
				}
			}
			if a.Session().Len() != 0 {
				t.Fatal("the rejected event was appended")
			}
		})
	}
	t.Run("well-formed cancel markers pass", func(t *testing.T) {
		for _, give := range []string{`{"cancelled":"active"}`, `{"cancelled":"inactive"}`, ` { "cancelled" : "inactive" } `} {
			if err := planmode.CheckPayload(ev(planmode.EventPlanCancel, give)); err != nil {
				t.Errorf("CheckPayload(%s) = %v", give, err)
			}
		}
	})
}

func TestPayloadCheckRejectsMalformedPlanModeOnOpen(t *testing.T) {
	h := newFakeHost()
	a := h.newAgent(t)
	// Written before the plugin ran, so nothing checked it.
	must(appendJSON(a.Session(), host.TypeTurnStart, nil, host.TurnStart{Turn: 1}))
	if _, err := a.Session().Append(ev(planmode.EventPlanMode, `{"active":"on"}`)); err != nil {
		t.Fatal(err)
	}
	h.start(t, nil)
	_, err := h.store.Open(a.Session().ID())
	if !errors.Is(err, planmode.ErrBadPayload) {
		t.Fatalf("Open error = %v, want ErrBadPayload", err)
	}
	for _, part := range []string{`event 2 "plan/mode"`, `active is "on"`} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not contain %q", err, part)
		}
	}
}

func TestStandalonePlanModeBetweenTurnsIsValid(t *testing.T) {
	h, c, a := startAgent(t)
	withHeader(h, a)
	if _, err := a.Session().Append(mode(true)); err != nil {
		t.Fatalf("a standalone plan/mode between turns was rejected: %v", err)
	}
	if _, err := h.store.Open(a.Session().ID()); err != nil {
		t.Fatal(err)
	}
	wantState(t, c, a, planmode.State{Active: true})
}

func TestPlanEventsAreDeclaredLogOnly(t *testing.T) {
	h := newFakeHost()
	h.start(t, nil)
	for _, name := range []string{planmode.EventPlanMode, planmode.EventPlanCancel} {
		kind, ok := h.EventKind(name)
		if !ok || kind != host.LogOnly {
			t.Errorf("EventKind(%s) = %v, %v; want log-only", name, kind, ok)
		}
	}
}

func TestListenerIsPrepended(t *testing.T) {
	h := newFakeHost()
	if _, err := h.AddPreStep("earlier", func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
		return next(ctx, s)
	}, true); err != nil {
		t.Fatal(err)
	}
	h.start(t, nil)
	first := h.PreSteps()[0].Name
	if first != planmode.PluginName {
		t.Fatalf("outermost listener = %q, want %q", first, planmode.PluginName)
	}
}

func TestListenerActsOnlyAfterInnerListenersAccept(t *testing.T) {
	h, c, a := startAgent(t)
	must(a.StartTurn())
	set(t, c, a, true)
	// An inner listener that rejects: the plugin must see its verdict.
	undo, err := h.AddPreStep("gate", func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
		return host.Reject("gate closed")
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	from := a.Session().Len()
	if d := h.runStep(a, accepted); d.Accepted {
		t.Fatal("the gate's rejection was overridden")
	}
	if len(modes(t, a.Session(), from)) != 0 {
		t.Fatal("plan/mode appended for a rejected step")
	}
	undo()
	h.runStep(a, accepted)
	wantState(t, c, a, planmode.State{Active: true})
}

func TestStopUnregistersEverything(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	if s, l, ty := h.registered(); s != 1 || l != 1 || ty != 3 {
		t.Fatalf("registered sections=%d listeners=%d types=%d, want 1, 1 and 3 (plan/mode, plan/cancel, plan/reopen)", s, l, ty)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s, l, ty := h.registered(); s != 0 || l != 0 || ty != 0 {
		t.Fatalf("after Stop sections=%d listeners=%d types=%d, want 0", s, l, ty)
	}
	// The payload check is gone too.
	a := h.newAgent(t)
	if _, err := a.Session().Append(ev(planmode.EventPlanMode, `{"active":"yes"}`)); err != nil {
		t.Fatalf("payload check still registered after Stop: %v", err)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Fatalf("second Stop = %v", err)
	}
}

func TestStartFailureUndoesEarlierRegistrations(t *testing.T) {
	h := newFakeHost()
	if _, err := h.AddSection(host.Section{Name: planmode.SectionName, Text: func(host.AssembleContext) string { return "" }}); err != nil {
		t.Fatal(err)
	}
	res, err := planmode.New(h.params(nil))
	if err != nil {
		t.Fatal(err)
	}
	err = res.Controller.Start(context.Background())
	if !errors.Is(err, host.ErrDuplicate) || !strings.Contains(err.Error(), "section") {
		t.Fatalf("Start error = %v, want a duplicate section", err)
	}
	if _, l, ty := h.registered(); l != 0 || ty != 0 {
		t.Fatalf("after a failed Start listeners=%d types=%d, want 0", l, ty)
	}
	a := h.newAgent(t)
	if _, err := res.Controller.Set(a, true); !errors.Is(err, planmode.ErrNotRunning) {
		t.Fatalf("Set after a failed Start = %v, want ErrNotRunning", err)
	}
}

func TestStartTwiceFails(t *testing.T) {
	h := newFakeHost()
	c := h.start(t, nil)
	if err := c.Start(context.Background()); !errors.Is(err, planmode.ErrAlreadyRunning) {
		t.Fatalf("second Start = %v, want ErrAlreadyRunning", err)
	}
}

func TestModuleRegistersOnStartAndUnregistersOnStop(t *testing.T) {
	h := newFakeHost()
	var c *planmode.Controller
	app := fxtest.New(t,
		fx.Supply(planmode.Config{Section: policy}),
		fx.Provide(
			func() host.Sections { return h },
			func() host.Tools { return h },
			func() host.PreStepChain { return h },
			func() host.EventTypes { return h },
			func() host.Validators { return h.store },
		),
		planmode.Module,
		fx.Populate(&c),
	)
	if s, l, ty := h.registered(); s != 0 || l != 0 || ty != 0 {
		t.Fatal("the constructor registered something before start")
	}
	app.RequireStart()
	if s, l, ty := h.registered(); s != 1 || l != 1 || ty != 3 {
		t.Fatalf("after start sections=%d listeners=%d types=%d, want 1, 1 and 3 (plan/mode, plan/cancel, plan/reopen)", s, l, ty)
	}
	a := h.newAgent(t)
	set(t, c, a, true)
	app.RequireStop()
	if s, l, ty := h.registered(); s != 0 || l != 0 || ty != 0 {
		t.Fatalf("after stop sections=%d listeners=%d types=%d, want 0", s, l, ty)
	}
	if _, err := c.Set(a, false); !errors.Is(err, planmode.ErrNotRunning) {
		t.Fatalf("Set after stop = %v, want ErrNotRunning", err)
	}
}

func TestOutcomeStrings(t *testing.T) {
	tests := []struct {
		give planmode.Outcome
		want string
	}{
		{planmode.Noop, "noop"},
		{planmode.Committed, "committed"},
		{planmode.Queued, "queued"},
		{planmode.Cancelled, "cancelled"},
		{planmode.Outcome(0), "Outcome(0)"},
	}
	for _, tt := range tests {
		if got := tt.give.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestPayloadCheckShortensLongValuesOnRuneBoundaries(t *testing.T) {
	long := `{"active":"` + strings.Repeat("é", 100) + `"}`
	err := planmode.CheckPayload(ev(planmode.EventPlanMode, long))
	if err == nil || !utf8.ValidString(err.Error()) || !strings.Contains(err.Error(), "…") {
		t.Fatalf("error = %q, want a shortened, valid UTF-8 value", err)
	}
}

func TestModuleWithSuppliesConfigPrivately(t *testing.T) {
	h := newFakeHost()
	registries := fx.Provide(
		func() host.Sections { return h },
		func() host.Tools { return h },
		func() host.PreStepChain { return h },
		func() host.EventTypes { return h },
		func() host.Validators { return h.store },
	)
	t.Run("the plugin runs on its own config", func(t *testing.T) {
		var c *planmode.Controller
		app := fxtest.New(t, registries, planmode.ModuleWith(planmode.Config{Section: policy}), fx.Populate(&c))
		app.RequireStart()
		a := h.newAgent(t)
		set(t, c, a, true)
		if !slices.Contains(h.render(a), planmode.SectionName) {
			t.Fatal("the section does not render")
		}
		app.RequireStop()
	})
	t.Run("the application cannot see the config", func(t *testing.T) {
		err := fx.New(fx.NopLogger, registries, planmode.ModuleWith(planmode.Config{Section: policy}),
			fx.Invoke(func(planmode.Config) {})).Err()
		if err == nil {
			t.Fatal("the application got the plugin's private Config")
		}
	})
	t.Run("another Config in the application does not clash", func(t *testing.T) {
		app := fxtest.New(t, registries, fx.Supply(planmode.Config{Section: "other"}),
			planmode.ModuleWith(planmode.Config{Section: policy}))
		app.RequireStart().RequireStop()
	})
}

// plainValidators offers only AddValidator, hiding the store's typed
// registration.
type plainValidators struct {
	vs    host.Validators
	calls []string
}

func (p *plainValidators) AddValidator(name string, v host.Validator) (func(), error) {
	p.calls = append(p.calls, "AddValidator "+name)
	return p.vs.AddValidator(name, v)
}

// TestPayloadCheckRegisters: the payload check is registered once, under
// the plugin's name, and a bad plan/mode is refused.
func TestPayloadCheckRegisters(t *testing.T) {
	h := newFakeHost()
	plain := &plainValidators{vs: h.store}
	tests := []struct {
		name  string
		vs    host.Validators
		calls *[]string
		want  []string
	}{
		{"plain", plain, &plain.calls, []string{"AddValidator " + planmode.PluginName}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := h.params(nil)
			p.Validators = tt.vs
			res, err := planmode.New(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := res.Controller.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = res.Controller.Stop(context.Background()) }()
			if !slices.Equal(*tt.calls, tt.want) {
				t.Errorf("registrations %q, want %q", *tt.calls, tt.want)
			}
			sess := h.newSession(t)
			if _, err := sess.Append(host.Event{Type: planmode.EventPlanMode, Data: []byte(`{"active":"yes"}`)}); !errors.Is(err, planmode.ErrBadPayload) {
				t.Errorf("append of a bad plan/mode: %v, want ErrBadPayload", err)
			}
		})
	}
}
