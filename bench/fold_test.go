package bench_test

import (
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// BenchmarkFoldPlanMode measures FoldPlanMode over a 1M-event log in memory,
// with its one plan/mode event in the first block (last=start: the backward
// scan reads the whole log), in the last block (last=end: it stops after a
// few events), and with none at all (last=none: it reads the whole log and
// finds nothing).
func BenchmarkFoldPlanMode(b *testing.B) {
	n := size1M.n
	for _, tt := range []struct {
		name string
		mode int
		want bool
	}{
		{"last=start", modeFirst, true},
		{"last=end", lastBlock(n), true},
		{"last=none", noMode, false},
	} {
		b.Run(size1M.name+"/"+tt.name, func(b *testing.B) {
			// Built here, not cached: only this benchmark reads these logs.
			events := host.LogOf(buildLog(shape{n, tt.mode}))
			b.ReportAllocs()
			var active bool
			for b.Loop() {
				active = planmode.FoldPlanMode(events, events.Len())
			}
			if active != tt.want {
				b.Fatalf("FoldPlanMode = %v, want %v", active, tt.want)
			}
		})
	}
}
