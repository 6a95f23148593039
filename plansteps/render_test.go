package plansteps_test

import (
	"flag"
	"strings"
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

func TestRenderANSIGolden(t *testing.T) {
	golden(t, "steps.ansi", plansteps.RenderANSI(sampleExecution(), 50))
}

func TestRenderHTMLGolden(t *testing.T) {
	golden(t, "steps.html", plansteps.RenderHTML(sampleExecution()))
}

func TestProgressTextGolden(t *testing.T) {
	golden(t, "progress.txt", plansteps.ProgressText(plansteps.State{Plan: sampleExecution()}))
}

func TestRenderStylesEachStatus(t *testing.T) {
	out := plansteps.RenderANSI(sampleExecution(), 60)
	for _, want := range []string{"✓ \x1b[9m1. Read", "▶ \x1b[1m2. Add", "○ 3. Document"} {
		if !strings.Contains(out, want) {
			t.Errorf("box lacks %q:\n%s", want, out)
		}
	}
	html := plansteps.RenderHTML(sampleExecution())
	for _, want := range []string{plansteps.ClassCompleted, plansteps.ClassInProgress, plansteps.ClassPending, "&lt;now&gt;"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if plansteps.RenderANSI(nil, 40) != "" || plansteps.RenderHTML(nil) != "" {
		t.Error("nil execution rendered")
	}
}
