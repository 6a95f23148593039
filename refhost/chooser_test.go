package refhost_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

// choosingModel answers from a script and names "big" once switched,
// "small" before.
type choosingModel struct {
	*scripted.Model
	switched atomic.Bool
}

func (m *choosingModel) ChooseModel(host.Agent) string {
	if m.switched.Load() {
		return "big"
	}
	return "small"
}

// TestModelChooserPerStep checks that the loop asks a choosing model once
// per step after the pre-step listeners (a switch made by one is in force
// for that very step), records the name on "step/start" and passes it in
// the request.
func TestModelChooserPerStep(t *testing.T) {
	m := &choosingModel{Model: scripted.NewModel(scripted.Step{Text: "one"}, scripted.Step{Text: "two"})}
	st := store.NewMemory()
	rt := must[*refhost.Runtime](t)(refhost.New(refhost.Options{Store: st, Model: m}))
	t.Cleanup(func() {
		if err := rt.Stop(ctxTimeout(t)); err != nil {
			t.Errorf("stop runtime: %v", err)
		}
	})
	// The second turn's pre-step switches.
	must[func()](t)(rt.AddPreStep("switch", func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
		if s.Turn == 2 {
			m.switched.Store(true)
		}
		return next(ctx, s)
	}, false))
	// A message an earlier run logged, read back from the log.
	sess := must[host.Session](t)(st.Create(""))
	for _, e := range []host.Event{
		{Type: host.TypeUserMessage, Data: []byte(`{"content":[{"type":"text","text":"before"}]}`)},
		{Type: host.TypeAssistantMessage, Data: []byte(`{"text":"earlier","model":"old"}`)},
	} {
		must[host.Event](t)(sess.Append(e))
	}
	a := must[*refhost.Agent](t)(rt.NewAgent("", sess))
	for _, text := range []string{"first", "second"} {
		send(t, a, text)
		waitIdle(t, a)
	}
	var got []string
	for _, s := range payloads[host.StepStart](t, a.Session(), host.TypeStepStart) {
		got = append(got, s.Model)
	}
	var asked []string
	for _, r := range m.Requests() {
		asked = append(asked, r.Model)
	}
	var wrote []string
	for _, m := range payloads[host.AssistantMessage](t, a.Session(), host.TypeAssistantMessage) {
		wrote = append(wrote, m.Model)
	}
	// The second request's transcript names the writer of each assistant
	// message: one folded from the log, one the loop seeded.
	var writers []string
	for _, msg := range m.Requests()[1].Messages {
		if msg.Role == refhost.RoleAssistant {
			writers = append(writers, msg.Model)
		}
	}
	if strings.Join(wrote, ",") != "old,small,big" || strings.Join(writers, ",") != "old,small" {
		t.Errorf("assistant/message models = %q, transcript writers = %q; want old,small,big and old,small", wrote, writers)
	}
	want := []string{"small", "big"}
	for _, tt := range []struct {
		name string
		got  []string
	}{{"step/start", got}, {"request", asked}} {
		if len(tt.got) != len(want) || tt.got[0] != want[0] || tt.got[1] != want[1] {
			t.Errorf("%s models = %q; want %q", tt.name, tt.got, want)
		}
	}
}

// TestModelWithoutChooserRecordsNone checks that a plain model leaves the
// step's model empty (and so out of the log).
func TestModelWithoutChooserRecordsNone(t *testing.T) {
	f := newFixture(t, scripted.Step{Text: "hi"})
	a := f.agent()
	f.steer(a, "hello")
	for _, e := range a.Session().Events().Slice() {
		if e.Type == host.TypeStepStart && string(e.Data) != `{"turn":1,"step":1,"attempt":1}` {
			t.Errorf("step/start = %s; want no model", e.Data)
		}
	}
	if r := f.model.Requests(); len(r) != 1 || r[0].Model != "" {
		t.Errorf("requests = %+v; want one without a model", r)
	}
}
