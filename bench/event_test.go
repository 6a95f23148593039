package bench_test

import (
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// turnEvents are the events the reference host appends for a one-step turn
// that the model answers with text, the step BenchmarkHostStep runs.
var turnEvents = []host.Event{
	{Type: host.TypeTurnStart, Data: []byte(`{"turn":1}`)},
	{Type: host.TypeStepStart, Data: []byte(`{"turn":1,"step":1,"attempt":1}`)},
	{Type: host.TypeUserMessage, Source: &host.Source{Kind: host.SourceUser}, Data: []byte(`{"content":[{"type":"text","text":"Go on."}]}`)},
	{Type: host.TypeAssistantMessage, Data: []byte(`{"text":"ok"}`)},
	{Type: host.TypeStepEnd, Data: []byte(`{"turn":1,"step":1,"attempt":1}`)},
	{Type: host.TypeTurnEnd, Data: []byte(`{"turn":1,"reason":"completed"}`)},
}

// BenchmarkPerEvent measures the plugin's work for one appended event, in
// the turn's order: the payload check (which a store runs on every append)
// and the plugin's subscription (which a store calls on every append, and
// which folds the event into the state that Get, the section and the
// pre-step listener read). That is everything the plugin adds to an append;
// the store's own work is not included. Six events make one step of
// BenchmarkHostStep, so 6 × this plus BenchmarkPerStep is the plugin's
// whole share of such a step.
func BenchmarkPerEvent(b *testing.B) {
	p, reg := newPluginOn(b)
	sess := &recordingSession{viewSession: newViewSession("view", host.LogOf(logOf(shape{size1k.n, modeFirst})))}
	a := &benchAgent{sess: sess}
	if text := p.SectionText(host.AssembleContext{Agent: a}); text != policy {
		b.Fatalf("section = %q, want the policy", text)
	}
	check, ok := reg.validators[planmode.PluginName]
	if !ok || len(sess.fns) != 1 {
		b.Fatalf("plugin registered validators %v and %d subscriptions, want %q and 1", keys(reg.validators), len(sess.fns), planmode.PluginName)
	}
	fold := sess.fns[0]
	b.ReportAllocs()
	i := 0
	cpu := cpuTime()
	for b.Loop() {
		e := turnEvents[i%len(turnEvents)]
		e.Seq = uint64(sess.Len() + i + 1) // the next position: the fold applies each event once
		if err := check(e); err != nil {
			b.Fatal(err)
		}
		fold(e)
		i++
	}
	reportCPU(b, cpu, b.N)
	if st := p.Get(a); !st.Active {
		b.Fatalf("state after the events = %+v, want active", st)
	}
}

// recordingSession is a viewSession that keeps every fn subscribed, so that
// a benchmark can call the plugin's fold directly.
type recordingSession struct {
	*viewSession
	fns []func(host.Event)
}

func (s *recordingSession) Subscribe(from int, fn func(host.Event)) func() {
	s.fns = append(s.fns, fn)
	return s.viewSession.Subscribe(from, fn)
}
