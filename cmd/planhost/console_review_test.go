package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/present"
)

// TestLineConsoleReviewEditsAndRevisions drives the line console's plan
// review through pipes as CI and screen readers do: Edit takes a plan typed
// up to a line holding only ".", an approval of the edit carries it to the
// model, an unchanged edit changes nothing, and a plan revised after Keep
// planning is shown with what changed (a unified diff) as in the
// full-screen UI.
func TestLineConsoleReviewEditsAndRevisions(t *testing.T) {
	presented := func(plan string) string {
		return "    toolCalls:\n      - name: exit_plan_mode\n        input:\n          plan: |\n" + "            " + strings.ReplaceAll(plan, "\n", "\n            ") + "\n"
	}
	script := "steps:\n  - text: Presenting.\n" + presented("# Add Goodbye\n\n1. Add `Goodbye`.") + "  - text: Revising.\n" +
		presented("# Add Goodbye\n\n1. Add `Goodbye`.\n2. Test it.") + "  - text: Working on it.\n"
	tests := []struct {
		name  string
		input []string
		// wantOut are lines of the transcript, in order.
		wantOut []string
		// wantResult are strings of the exit_plan_mode result numbered
		// result (from 0).
		result     int
		wantResult []string
		noResult   []string
	}{
		{
			name:       "an edit approved travels to the model",
			input:      []string{"/plan Add Goodbye", "e", "# Add Goodbye", "", "1. Add `Goodbye` and `Hello`.", ".", "a"},
			wantOut:    []string{"[e] Edit", "edit › 1. Add `Goodbye` and `Hello`.", present.English.Review.DiffEdited, "-1. Add `Goodbye`.", "+1. Add `Goodbye` and `Hello`.", present.English.Review.EditedNote, "┌─ Plan review", "review [a/s/k/e/d] › a"},
			wantResult: []string{`"approved":true`, `"editedByUser":true`, "and `Hello`"},
		},
		{
			name:       "an edit ended at once keeps the plan",
			input:      []string{"/plan Add Goodbye", "e", ".", "a"},
			wantOut:    []string{present.English.Console.EditUnchanged, "┌─ Plan review"},
			wantResult: []string{`"approved":true`},
			noResult:   []string{"editedByUser"},
		},
		{
			// An edit sent back never reaches the model, which revises
			// the plan it presented: that is what the revision shows
			// the changes from.
			name:       "an edit sent back leaves the model's plan what the revision is compared with",
			input:      []string{"/plan Add Goodbye", "e", "# Add Goodbye", "", "1. Add `Goodbye` now.", ".", "k", "Add a test.", "a"},
			wantOut:    []string{present.English.Review.DiffRevised, " 1. Add `Goodbye`.", "+2. Test it."},
			result:     1,
			wantResult: []string{`"approved":true`},
			noResult:   []string{"editedByUser"},
		},
		{
			name:       "a revision after Keep planning shows what changed",
			input:      []string{"/plan Add Goodbye", "k", "Add a test.", "a"},
			wantOut:    []string{"Revising.", present.English.Review.DiffRevised, "@@ ", " 1. Add `Goodbye`.", "+2. Test it.", "review [a/s/k/e/d] › a"},
			result:     1,
			wantResult: []string{`"approved":true`},
		},
		{
			name:       "the edit key is no answer once typed as plan text",
			input:      []string{"/plan Add Goodbye", "e", "a", "d", ".", "d"},
			wantOut:    []string{"edit › a", "edit › d", present.English.Review.DiffEdited},
			wantResult: []string{"dismissed the plan review"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRunDir(t)
			s := writeScript(t, dir, "s.yaml", script)
			out, _ := mustMain(t, exitOK, strings.Join(tt.input, "\n")+"\n", runArgs(dir, s)...)
			rest := out
			for _, w := range tt.wantOut {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("the transcript lacks %q (in order):\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
			res := exitResults(t, sessionEvents(t, dir))
			if len(res) <= tt.result {
				t.Fatalf("exit_plan_mode results: %d\n%s", len(res), out)
			}
			last := res[tt.result].Output
			for _, w := range tt.wantResult {
				if !strings.Contains(last, w) {
					t.Errorf("the result lacks %q: %s", w, last)
				}
			}
			for _, w := range tt.noResult {
				if strings.Contains(last, w) {
					t.Errorf("the result has %q: %s", w, last)
				}
			}
		})
	}
}

// TestLineConsoleReopenShowsWhatChangedSinceTheReopenedPlan: after
// "/plan reopen", the next review shows the plan against the reopened one.
func TestLineConsoleReopenShowsWhatChangedSinceTheReopenedPlan(t *testing.T) {
	presented := func(plan string) string {
		return "    toolCalls:\n      - name: exit_plan_mode\n        input:\n          plan: |\n" + "            " + strings.ReplaceAll(plan, "\n", "\n            ") + "\n"
	}
	script := "steps:\n  - text: Presenting.\n" + presented("# Add Goodbye\n\n1. Add `Goodbye`.") + "  - text: Working on it.\n" +
		"  - text: Revising.\n" + presented("# Add Goodbye\n\n1. Add `Goodbye`.\n2. Test it.") + "  - text: Working again.\n"
	dir := newRunDir(t)
	s := writeScript(t, dir, "s.yaml", script)
	out, _ := mustMain(t, exitOK, strings.Join([]string{"/plan Add Goodbye", "a", "/plan reopen", "/plans", "Add a test.", "a"}, "\n")+"\n", runArgs(dir, s)...)
	rest := out
	for _, w := range []string{"Working on it.", "Plan 1 is reopened", present.English.Plans.Header, "1. Add Goodbye — approved; reopened as the working draft", "Revising.", fmt.Sprintf(present.English.Review.DiffReopened, 1), " 1. Add `Goodbye`.", "+2. Test it.", "Working again."} {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("the transcript lacks %q (in order):\n%s", w, out)
		}
		rest = rest[i+len(w):]
	}
	// inspect and its HTML page say which plan was reopened.
	files, _ := filepath.Glob(filepath.Join(dir, "sessions", "*.jsonl"))
	page := filepath.Join(t.TempDir(), "page.html")
	checkInspectSays(t, dir, "· plan 1 reopened as the working draft: Add Goodbye")
	mustMain(t, exitOK, "", "inspect", "-html", page, files[0])
	if b, err := os.ReadFile(page); err != nil || strings.Count(string(b), present.English.Page.Reopened) != 1 {
		t.Errorf("the page marks %d plans reopened, want 1 (%v)", strings.Count(string(b), present.English.Page.Reopened), err)
	}
}
