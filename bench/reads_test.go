package bench_test

import (
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/benchcpu"
)

// readSizes are the log lengths of the baseline comparison.
var readSizes = []size{size1k, size100k, size1M}

// implementation is one side of the comparison: its sub-benchmark label and
// how to set it up on a session.
type implementation struct {
	name string
	new  func(b *testing.B, a host.Agent) questions
}

var implementations = []implementation{
	{"impl=refold", func(*testing.B, host.Agent) questions { return refold{section: policy} }},
	{"impl=planmode", func(b *testing.B, a host.Agent) questions {
		p := newPlugin(b)
		// The first request's section makes the controller serve the
		// session, folding the log once; the benchmark measures the calls
		// that follow, as every later step makes them.
		if text := p.SectionText(host.AssembleContext{Agent: a}); text != policy {
			b.Fatalf("section = %q, want the policy", text)
		}
		return p
	}},
}

// benchQuestions runs op for each implementation and log length, on the
// shared modeFirst session (plan mode active, set at the start, no turn
// open). op returns false when an answer is wrong.
func benchQuestions(b *testing.B, op func(q questions, a host.Agent) bool) {
	for _, impl := range implementations {
		b.Run(impl.name, func(b *testing.B) {
			for _, sz := range readSizes {
				b.Run(sz.name, func(b *testing.B) {
					a := &benchAgent{sess: sharedSession(b, sz.n)}
					q := impl.new(b, a)
					b.ReportAllocs()
					ok := true
					done := benchcpu.Measure(b)
					for b.Loop() {
						ok = op(q, a)
					}
					done()
					if !ok {
						b.Fatalf("%s answered wrongly on a log of %d events (plan mode active)", impl.name, sz.n)
					}
				})
			}
		})
	}
}

// BenchmarkStateRead measures Controller.Get against the baseline.
func BenchmarkStateRead(b *testing.B) {
	benchQuestions(b, func(q questions, a host.Agent) bool {
		return q.Get(a) == planmode.State{Active: true}
	})
}
