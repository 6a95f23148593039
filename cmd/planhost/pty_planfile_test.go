package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dshgo/planmode/planfile"
)

// planFileDeploy writes a deployment with plan-mode, plan-file (plans under
// dir) and plan-review with every extra answer, and returns its path.
func planFileDeploy(t *testing.T, dir string) string {
	t.Helper()
	cfg := filepath.Join(dir, "deploy.yaml")
	yaml := "plugins:\n  plan-mode:\n    section: Plan first, then present the plan with exit_plan_mode.\n  plan-file:\n    dir: plans\n  plan-review:\n    options: [approve-with-comments, approve-and-clear, abandon]\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// startPlanFile runs "planhost run" with planFileDeploy in a 200×rows
// terminal.
func startPlanFile(t *testing.T, rows uint16, env ...string) (*ptySession, string) {
	t.Helper()
	dir := newRunDir(t)
	args := ptyRunArgs(t, dir, filepath.Join("testdata", "pty", "approve.yaml"), "-config", planFileDeploy(t, dir))
	s := startPTY(t, 200, rows, env, args...)
	s.waitScreen("shift+tab")
	return s, dir
}

// exitResult decodes the one exit_plan_mode result of the run in dir.
func exitResult(t *testing.T, dir string) map[string]any {
	t.Helper()
	res := exitResults(t, sessionEvents(t, dir))
	if len(res) != 1 || res[0].IsError {
		t.Fatalf("exit results = %+v", res)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res[0].Output), &out); err != nil {
		t.Fatalf("result %q: %v", res[0].Output, err)
	}
	return out
}

// TestPTYEditThePlanFile protects the review's edit with plan-file: the
// path is shown, the editor's change lands in the plan file, and the
// approval reports the edit once, through plan-file.
func TestPTYEditThePlanFile(t *testing.T) {
	s, dir := startPlanFile(t, 30, "EDITOR="+absPath(t, filepath.Join("testdata", "pty", "editor.sh")))
	screen := s.review()
	checkHas(t, "review", screen, "Plan file: "+filepath.Join(dir, "plans"), "[w] Approve with comments", "[c] Approve and clear", "[x] Abandon")
	s.answer("e")
	s.waitScreen("You edited this plan")
	s.answer("a")
	s.waitScreen("Plan approved as you edited it.")
	s.waitScreen("Working on it.")
	s.quit()
	out := exitResult(t, dir)
	const step = "2. Edited step from the editor."
	if out["approved"] != true || out["edited"] != true || !strings.Contains(out["plan"].(string), step) {
		t.Errorf("result = %v; want plan-file's edited result", out)
	}
	if _, twice := out["editedByUser"]; twice {
		t.Errorf("result = %v; planhost-edit reported the edit too", out)
	}
	b, err := os.ReadFile(out["planFile"].(string))
	if err != nil || !strings.Contains(string(b), step) {
		t.Errorf("plan file = %q, %v; want the edit", b, err)
	}
	// inspect tells the same story.
	checkInspectSays(t, dir, "Plan approved as you edited it.")
}

// TestRunPlanFileAndExtraAnswersThroughPipes protects the line console's
// review with the companions: the plan file's path is shown and Approve
// with comments takes one line of comments.
func TestRunPlanFileAndExtraAnswersThroughPipes(t *testing.T) {
	dir := newRunDir(t)
	args := runArgs(dir, filepath.Join("testdata", "pty", "approve.yaml"), "-config", planFileDeploy(t, dir))
	stdout, _ := mustMain(t, exitOK, "/plan Add Goodbye\nw\nUse a flag.\n", args...)
	checkHas(t, "output", stdout, "Plan file: "+filepath.Join(dir, "plans"), "[w] Approve with comments", "[x] Abandon")
	if out := exitResult(t, dir); out["approved"] != true || out["comments"] != "Use a flag." || out["edited"] != false {
		t.Errorf("result = %v", out)
	}
}

// TestPTYAPlanChangedDuringTheReviewIsShownAgain protects the reviewer of
// the terminal UI from approving a plan they never saw: the plan file is
// rewritten (by another writer) while the review is open; the approval is
// not taken, the review opens again saying the plan changed and showing
// the diff, and approving then records the new text, unedited.
func TestPTYAPlanChangedDuringTheReviewIsShownAgain(t *testing.T) {
	s, dir := startPlanFile(t, 40)
	s.review()
	files, err := filepath.Glob(filepath.Join(dir, "plans", "*", "plan.md"))
	if err != nil || len(files) != 1 {
		t.Fatalf("plan files %v, %v", files, err)
	}
	const swapped = "# Add Goodbye\n\n1. Run the installer script from the network.\n"
	tmp := filepath.Join(filepath.Dir(files[0]), "swap.tmp")
	if err := os.WriteFile(tmp, []byte(swapped), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, files[0]); err != nil {
		t.Fatal(err)
	}
	s.answer("a")
	screen := s.waitScreen("The plan changed while you were reviewing it")
	checkHas(t, "the review asked again", screen, "+1. Run the installer script from the network.", "-1. Add `Goodbye` to `greeter.go`.")
	s.answer("a")
	s.waitScreen("Working on it.")
	s.quit()
	if out := exitResult(t, dir); out["approved"] != true || out["edited"] != false {
		t.Errorf("result = %v; want an unedited approval", out)
	}
	var approved []planfile.ApprovedPayload
	for _, e := range sessionEvents(t, dir) {
		var p planfile.ApprovedPayload
		if e.Type == planfile.EventApproved && json.Unmarshal(e.Data, &p) == nil {
			approved = append(approved, p)
		}
	}
	if len(approved) != 1 || approved[0].Content != swapped || approved[0].ShownSHA256 != planfile.Digest(swapped) {
		t.Errorf("plan/approved %+v; want the text shown in the second review", approved)
	}
}

// TestRunReopenAPlanPresentedFromTheFile protects the line console's
// /plans and /plan reopen for a plan the model wrote to the plan file and
// presented without a plan argument: /plans lists it with its title, and
// the reopen seeds the file with its text.
func TestRunReopenAPlanPresentedFromTheFile(t *testing.T) {
	dir := newRunDir(t)
	args := runArgs(dir, filepath.Join("testdata", "pty", "planfile-nameless.yaml"), "-config", planFileDeploy(t, dir))
	stdout, _ := mustMain(t, exitOK, "/plan Add Goodbye\na\n/plans\n/plan reopen\n", args...)
	if !regexp.MustCompile(`(?m)^\s*1\. Add Goodbye — approved`).MatchString(stdout) {
		t.Errorf("/plans does not list the plan with its title:\n%s", stdout)
	}
	if !strings.Contains(stdout, "Plan 1 is reopened as the working draft") {
		t.Errorf("/plan reopen did not reopen plan 1:\n%s", stdout)
	}
	out := exitResult(t, dir)
	want := "# Add Goodbye\n\n1. Add `Goodbye` to `greeter.go`.\n"
	if out["plan"] != want {
		t.Errorf("result = %v; want the file's plan in it", out)
	}
	if b, err := os.ReadFile(out["planFile"].(string)); err != nil || string(b) != want {
		t.Errorf("plan file = %q, %v; want the reopened plan", b, err)
	}
}
