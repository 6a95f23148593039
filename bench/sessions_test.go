package bench_test

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/benchcpu"
)

// BenchmarkServedSessions measures the per-step reads when the controller
// serves many sessions, side by side with the same reads on one:
//
//   - sessions=1: every call asks about the same session;
//   - sessions=10k: the controller serves 10,000 sessions and the calls
//     cycle through them in the order they were first served;
//   - sessions=10k-shuffled: the same in a fixed shuffled order, so that
//     the order the sessions were allocated in does not help the cache
//     either.
//
// read=host is the floor: the host's own calls a read cannot avoid (the
// agent's session, its ID and length). read=state is Controller.Get. Each
// session is a read-only view over the same 1k-event log with plan mode
// active.
func BenchmarkServedSessions(b *testing.B) {
	events := host.LogOf(logOf(shape{size1k.n, modeFirst}))
	reads := []struct {
		name string
		op   func(p plugin, a host.Agent) bool
	}{
		{"read=host", func(_ plugin, a host.Agent) bool {
			sess := a.Session()
			return sess.ID() != "" && sess.Len() == events.Len()
		}},
		{"read=state", func(p plugin, a host.Agent) bool {
			return p.Get(a) == planmode.State{Active: true}
		}},
	}
	for _, rd := range reads {
		for _, n := range []struct {
			name    string
			n       int
			shuffle bool
		}{{"sessions=1", 1, false}, {"sessions=10k", 10_000, false}, {"sessions=10k-shuffled", 10_000, true}} {
			b.Run(rd.name+"/"+n.name, func(b *testing.B) {
				p := newPlugin(b)
				agents := make([]host.Agent, n.n)
				for i := range agents {
					agents[i] = &benchAgent{sess: newViewSession("served-"+strconv.Itoa(i), events)}
					if text := p.SectionText(host.AssembleContext{Agent: agents[i]}); text != policy {
						b.Fatalf("section = %q, want the policy", text)
					}
				}
				if n.shuffle {
					rand.New(rand.NewPCG(1, 2)).Shuffle(len(agents), func(i, j int) {
						agents[i], agents[j] = agents[j], agents[i]
					})
				}
				b.ReportAllocs()
				ok := true
				i := 0
				done := benchcpu.Measure(b)
				for b.Loop() {
					ok = rd.op(p, agents[i]) && ok
					if i++; i == len(agents) {
						i = 0
					}
				}
				done()
				if !ok {
					b.Fatalf("%s answered wrongly with %d sessions (plan mode active)", rd.name, n.n)
				}
			})
		}
	}
}
