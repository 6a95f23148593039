package plansteps_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/plansteps"
)

// BenchmarkApplyStepCompleted is the incremental fold's cost of one
// plan/step-completed event, by plan size: it copies the plan's steps once,
// whatever the length of the log before it.
func BenchmarkApplyStepCompleted(b *testing.B) {
	for _, n := range []int{3, 30, plansteps.MaxSteps} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			steps := make([]string, n)
			for i := range steps {
				steps[i] = fmt.Sprintf(`{"id":%d,"description":"step %d"}`, i+1, i+1)
			}
			s := plansteps.Fold(host.LogOf([]host.Event{ev(1, plansteps.EventSteps, `{"title":"T","source":"steps","steps":[`+strings.Join(steps, ",")+`]}`)}))
			e := ev(2, plansteps.EventStepCompleted, `{"step":1,"verification_result":"ok"}`)
			b.ReportAllocs()
			for b.Loop() {
				_ = plansteps.Apply(s, e)
			}
		})
	}
}
