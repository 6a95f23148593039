package plansteps_test

import (
	"flag"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companiontest"
	"github.com/dshgo/planmode/plansteps"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	companiontest.Golden(t, *update, "./plansteps", name, got)
}

func sampleExecution() *plansteps.Execution {
	s := plansteps.Fold(host.LogOf([]host.Event{
		ev(1, plansteps.EventSteps, `{"title":"Add retries <now>","source":"steps","steps":[`+
			`{"id":1,"description":"Read the uploader"},`+
			`{"id":2,"description":"Add the retry loop with exponential backoff","depends_on":[1],"verification":"go test ./upload"},`+
			`{"id":3,"description":"Document the setting","depends_on":[2]}]}`),
		ev(2, plansteps.EventStepCompleted, `{"step":1,"verification_result":"read"}`),
	}))
	return s.Plan
}

func TestProgressTextGolden(t *testing.T) {
	golden(t, "progress.txt", plansteps.ProgressText(plansteps.State{Plan: sampleExecution()}))
}
