package plansteps_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dshgo/planmode/plansteps"
)

func TestMarkdownSteps(t *testing.T) {
	tests := []struct {
		name string
		give string
		want []string
	}{
		{"plain list", "# P\n\n1. a\n2. b\n", []string{"a", "b"}},
		{"parenthesis markers and blank lines", "# P\n1) a\n\n2) b\n", []string{"a", "b"}},
		{"continuations and sub-bullets stay in the step", "# P\n1. a\n   more about a\n   - detail\n2. b\n", []string{"a\nmore about a\n- detail", "b"}},
		{"a code block does not end the list", "# P\n\n1. Build:\n\n   ```sh\n   make\n   ```\n\n2. Test\n3. Ship\n", []string{"Build:\n\n```sh\nmake\n```", "Test", "Ship"}},
		{"a nested numbered list is no steps", "# P\n1. Build\n   1. compile\n   2. link\n2. Test\n", []string{"Build\n1. compile\n2. link", "Test"}},
		{"a change of delimiter starts a new list", "# P\n1) a\n2) b\n\n1. x\n", []string{"a", "b"}},
		{"only the first list", "# P\n1. a\n\nText between.\n\n1. x\n", []string{"a"}},
		{"bullets before the list are not steps", "# P\n- x\n- y\n\n1. a\n", []string{"a"}},
		{"lists in code fences are not steps", "# P\n```\n1. no\n```\n1. a\n", []string{"a"}},
		{"no list", "# P\n\nJust text.\n", nil},
		{"numbers without a space are no items", "# P\n1.5 million\n2.a\n", nil},
		{"deeply indented numbers are no items", "# P\n    1. code\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps, ok := plansteps.MarkdownSteps(tt.give, plansteps.MaxSteps)
			if !ok {
				t.Fatal("reported too many")
			}
			var got []string
			for i, s := range steps {
				if s.ID != i+1 {
					t.Fatalf("step %d has id %d", i+1, s.ID)
				}
				got = append(got, s.Description)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
	var b strings.Builder
	for range 101 {
		b.WriteString("1. x\n")
	}
	if steps, ok := plansteps.MarkdownSteps(b.String(), plansteps.MaxSteps); ok || len(steps) != 100 {
		t.Fatalf("101 items: ok %v, %d steps", ok, len(steps))
	}
}

// FuzzDecodeSteps: any input either fails with ErrBadSteps or gives steps
// that the payload check accepts in a plan/steps event.
func FuzzDecodeSteps(f *testing.F) {
	f.Add(`[{"description":"a"},{"description":"b","depends_on":[1],"files":["x"],"verification":"v"}]`)
	f.Add(`[{"id":1,"description":"a"}]`)
	f.Add(`[{"description":"a","depends_on":[0]}]`)
	f.Add(`[{"description":""}]`)
	f.Add(`null`)
	f.Add(`[{"description":"a","files":[""]}]`)
	f.Fuzz(func(t *testing.T, input string) {
		steps, err := plansteps.DecodeSteps(json.RawMessage(input), plansteps.MaxSteps)
		if err != nil {
			return
		}
		data, err := json.Marshal(plansteps.StepsPayload{Title: "T", Source: plansteps.SourceSteps, Steps: append([]plansteps.Step{}, steps...)})
		if err != nil {
			t.Fatal(err)
		}
		if err := plansteps.CheckPayload(ev(1, plansteps.EventSteps, string(data))); err != nil {
			t.Fatalf("accepted steps %s fail the payload check: %v", input, err)
		}
		_ = plansteps.StepsMarkdown(steps)
	})
}

func FuzzMarkdownSteps(f *testing.F) {
	f.Add("# P\n1. a\n2. b\n")
	f.Add("```\n1. x\n```\n1) y\n")
	f.Add("1. Build\n   1. compile\n   2. link\n2. Test\n")
	f.Add("1. a\n\n   ```\n   x\n   ```\n2. b\n")
	f.Fuzz(func(t *testing.T, plan string) {
		steps, _ := plansteps.MarkdownSteps(plan, plansteps.MaxSteps)
		if len(steps) > plansteps.MaxSteps {
			t.Fatalf("%d steps", len(steps))
		}
		for i, s := range steps {
			if s.ID != i+1 || strings.TrimSpace(s.Description) == "" || len(s.Description) > plansteps.MaxTextSize {
				t.Fatalf("step %+v", s)
			}
		}
		data, err := json.Marshal(plansteps.StepsPayload{Title: "T", Source: plansteps.SourceMarkdown, Steps: append([]plansteps.Step{}, steps...)})
		if err != nil {
			t.Fatal(err)
		}
		if err := plansteps.CheckPayload(ev(1, plansteps.EventSteps, string(data))); err != nil {
			t.Fatalf("steps of %q fail the payload check: %v", plan, err)
		}
	})
}
