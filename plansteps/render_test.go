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

// TestRenderCountsInWords: the footer says "1 deviation", "1 step",
// "2 deviations", never "1 deviations".
func TestRenderCountsInWords(t *testing.T) {
	steps := func(n int, done bool) []plansteps.StepState {
		var out []plansteps.StepState
		for i := range n {
			out = append(out, plansteps.StepState{Step: plansteps.Step{ID: i + 1, Description: "s"}, Completed: done})
		}
		return out
	}
	devs := func(n int) []plansteps.Deviation {
		return make([]plansteps.Deviation, n)
	}
	tests := []struct {
		name string
		give plansteps.Execution
		want string
		bad  string
	}{
		{"one deviation", plansteps.Execution{Steps: steps(3, true), Done: true, Deviations: devs(1)}, "Completed: 3 of 3 steps done, 1 deviation", "1 deviations"},
		{"two deviations", plansteps.Execution{Steps: steps(3, true), Done: true, Deviations: devs(2)}, "Completed: 3 of 3 steps done, 2 deviations", ""},
		{"no deviation", plansteps.Execution{Steps: steps(2, true), Done: true}, "Completed: 2 of 2 steps done, 0 deviations", ""},
		{"one step", plansteps.Execution{Steps: steps(1, true), Done: true}, "Completed: 1 of 1 step done", "1 steps"},
		{"one step done, not completed", plansteps.Execution{Steps: steps(1, true)}, "All 1 step done", "1 steps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, out := range []string{plansteps.RenderANSI(&tt.give, 80), plansteps.RenderHTML(&tt.give)} {
				if !strings.Contains(out, tt.want) {
					t.Errorf("lacks %q:\n%s", tt.want, out)
				}
				if tt.bad != "" && strings.Contains(out, tt.bad) {
					t.Errorf("says %q:\n%s", tt.bad, out)
				}
			}
		})
	}
}
