package bench_test

import (
	"strconv"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/benchcpu"
)

// countTurns is the floor of first sight: the cheapest fold that reads
// every event's type (it counts the turns), so its cost is little more than
// bringing the events into the cache.
//
//go:noinline
func countTurns(events host.Log) int {
	n := 0
	for i := 0; i < events.Len(); {
		chunk, first := events.ChunkAt(i)
		for j := range chunk {
			if chunk[j].Type == host.TypeTurnStart {
				n++
			}
		}
		i = first + len(chunk)
	}
	return n
}

// BenchmarkFirstSight measures what the plugin pays the first time it sees
// a session, side by side with a floor:
//
//   - impl=floor: countTurns over the events, a loop that only reads each
//     event's type;
//   - impl=project: planmode.Project over the events;
//   - impl=serve: the controller's first request section on a new session
//     (a read-only view over the same events), which makes it fold the log
//     and serve the session.
//
// The log is the modeFirst log: plan mode set in the first block, a
// request header every 1000 events, an exit-tool-free tool call in every
// block.
func BenchmarkFirstSight(b *testing.B) {
	for _, sz := range []size{size1k, size1M} {
		events := host.LogOf(logOf(shape{sz.n, modeFirst}))
		turns := sz.n / blockLen * 3
		b.Run(sz.name+"/impl=floor", func(b *testing.B) {
			b.ReportAllocs()
			var n int
			done := benchcpu.Measure(b)
			for b.Loop() {
				n = countTurns(events)
			}
			done()
			if n != turns {
				b.Fatalf("counted %d turns, want %d", n, turns)
			}
		})
		b.Run(sz.name+"/impl=project", func(b *testing.B) {
			b.ReportAllocs()
			var p planmode.State
			done := benchcpu.Measure(b)
			for b.Loop() {
				p = planmode.Project(events)
			}
			done()
			if p != (planmode.State{Active: true}) {
				b.Fatalf("Project = %+v, want active with nothing pending", p)
			}
		})
		b.Run(sz.name+"/impl=serve", func(b *testing.B) {
			p := newPlugin(b)
			b.ReportAllocs()
			var text string
			id := 0
			done := benchcpu.Measure(b)
			for b.Loop() {
				// A new session each time (the controller keys its state
				// by session ID), closed after the call so that the
				// controller releases it and a long run keeps no more
				// than a few.
				id++
				sess := newViewSession("first-sight-"+strconv.Itoa(id), events)
				text = p.SectionText(host.AssembleContext{Agent: &benchAgent{sess: sess}})
				sess.close()
			}
			done()
			if text != policy {
				b.Fatalf("section = %q, want the policy", text)
			}
		})
	}
}
