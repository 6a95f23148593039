package bench_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/store"
)

// questions are what the plugin answers on every model step: the state (for
// UIs and the tools), the plan:policy text for the request, the pre-step
// decision, and the exit tool's check that the logged state is plan mode.
type questions interface {
	Get(a host.Agent) planmode.State
	SectionText(ac host.AssembleContext) string
	PreStep(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision
	ExitAllowed(a host.Agent) bool
}

// refold is the baseline: it answers the questions the way the reference
// design does, by folding the session log again on every call (the
// plan/mode fold and the open-turn fold over sess.Events().Slice()), so each answer
// costs O(log) and a session O(log²). It keeps no state, and the benchmarks
// make no selections, so nothing is ever pending.
//
// FoldPlanMode scans backwards and stops at the last plan/mode, so on a log
// whose last plan/mode is recent the baseline is cheap; the benchmarks use
// logs whose plan mode was set at the start (see modeFirst), where the
// backward scan reads the whole log, as the reference design's forward fold
// always does.
type refold struct{ section string }

// fold returns the logged state and whether a turn is open.
func (refold) fold(a host.Agent) (active, turnOpen bool) {
	if a == nil || a.Session() == nil {
		return false, false
	}
	ev := a.Session().Events()
	return planmode.FoldPlanMode(ev, ev.Len()), e2etest.TurnOpen(ev, ev.Len())
}

func (r refold) Get(a host.Agent) planmode.State {
	active, _ := r.fold(a)
	return planmode.State{Active: active}
}

func (r refold) SectionText(ac host.AssembleContext) string {
	if active, _ := r.fold(ac.Agent); active {
		return r.section
	}
	return ""
}

// PreStep decides like the plugin's listener: the rest of the chain first,
// then, for an accepted step, the state that tells whether a selection has
// to land (none ever does here).
func (r refold) PreStep(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
	d := next(ctx, s)
	if !d.Accepted || ctx.Err() != nil {
		return d
	}
	r.fold(s.Agent)
	return d
}

func (r refold) ExitAllowed(a host.Agent) bool {
	active, _ := r.fold(a)
	return active
}

// plugin asks the real controller, through the section and the pre-step
// listener it registered.
type plugin struct {
	c       *planmode.Controller
	section host.Section
	preStep host.PreStepListener
}

func (p plugin) Get(a host.Agent) planmode.State { return p.c.Get(a) }

func (p plugin) SectionText(ac host.AssembleContext) string { return p.section.Text(ac) }

func (p plugin) PreStep(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
	return p.preStep(ctx, s, next)
}

func (p plugin) ExitAllowed(a host.Agent) bool { return p.c.Get(a).Active }

// newPlugin starts a controller on a fresh minimal host, stopped when tb's
// test ends. Its payload check goes to that host, so no store runs it.
func newPlugin(tb testing.TB) plugin {
	tb.Helper()
	p, _ := newPluginOn(tb)
	return p
}

// newPluginOn is newPlugin that also returns the host it registered with.
func newPluginOn(tb testing.TB) (plugin, *registries) {
	tb.Helper()
	reg := newRegistries()
	c := startPlugin(tb, reg, reg)
	s, ok := reg.sections[planmode.SectionName]
	l, ok2 := reg.preSteps[planmode.PluginName]
	if !ok || !ok2 {
		tb.Fatalf("plugin registered sections %v and pre-step listeners %v, want %q and %q",
			keys(reg.sections), keys(reg.preSteps), planmode.SectionName, planmode.PluginName)
	}
	return plugin{c: c, section: s, preStep: l}, reg
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// accept is the innermost link of the benchmarks' pre-step chain.
func accept(_ context.Context, s host.Step) host.Decision { return host.Accept(s.Messages) }

// TestRefoldAgrees checks that the baseline answers what the plugin answers,
// so that the benchmarks compare two ways of computing the same thing.
func TestRefoldAgrees(t *testing.T) {
	const n = 10 * blockLen
	tests := []struct {
		name       string
		give       shape
		openTurn   bool
		wantActive bool
	}{
		{name: "plan mode set at the start", give: shape{n, modeFirst}, wantActive: true},
		{name: "plan mode set in the last block", give: shape{n, lastBlock(n)}, wantActive: true},
		{name: "plan mode never set", give: shape{n, noMode}},
		{name: "plan mode set at the start, a turn open", give: shape{n, modeFirst}, openTurn: true, wantActive: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := logOf(tt.give)
			if tt.openTurn {
				events = append(events[:len(events):len(events)], host.Event{Type: host.TypeTurnStart, Data: fmt.Appendf(nil, `{"turn":%d}`, 3*n/blockLen+1)})
			}
			base := refold{section: policy}
			for _, served := range []bool{false, true} {
				sess, err := newMemorySession(store.NewMemory(), events)
				if err != nil {
					t.Fatal(err)
				}
				a := &benchAgent{sess: sess}
				p := newPlugin(t)
				if served {
					// The first section call makes the controller serve the
					// session: from then on it answers from kept state.
					p.SectionText(host.AssembleContext{Agent: a})
				}
				for name, impl := range map[string]questions{"refold": base, "plugin": p} {
					if got := impl.Get(a); got != (planmode.State{Active: tt.wantActive}) {
						t.Errorf("%s (served %v): Get = %+v, want active %v", name, served, got, tt.wantActive)
					}
					if got := impl.ExitAllowed(a); got != tt.wantActive {
						t.Errorf("%s (served %v): exit allowed = %v, want %v", name, served, got, tt.wantActive)
					}
					wantText := ""
					if tt.wantActive {
						wantText = policy
					}
					if got := impl.SectionText(host.AssembleContext{Agent: a}); got != wantText {
						t.Errorf("%s (served %v): section = %q, want %q", name, served, got, wantText)
					}
					step := host.Step{Agent: a, Turn: 1, Step: 1, Attempt: 1, Messages: []host.Message{{Content: []host.Block{host.TextBlock("hi")}}}}
					if d := impl.PreStep(context.Background(), step, accept); !d.Accepted || len(d.Messages) != 1 {
						t.Errorf("%s (served %v): pre-step decision = %+v, want accepted with the step's one message", name, served, d)
					}
					if got := sess.Len(); got != len(events) {
						t.Errorf("%s (served %v): log holds %d events after the questions, want %d (nothing appended)", name, served, got, len(events))
					}
				}
			}
		})
	}
}
