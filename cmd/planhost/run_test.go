package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/internal/present"
)

// runArgs returns the flags of a piped "planhost run" with the test
// deployment, a scripted model, and the workspace and sessions under dir.
func runArgs(dir, script string, extra ...string) []string {
	return append([]string{
		"run", "-config", filepath.Join("testdata", "run", "deploy.yaml"),
		"-model", "scripted:" + script,
		"-workspace", filepath.Join(dir, "ws"),
		"-sessions", filepath.Join(dir, "sessions"),
	}, extra...)
}

// writeScript writes a refhost/scripted YAML script into dir.
func writeScript(t *testing.T, dir, name, yaml string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func newRunDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "ws"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunThroughPipes drives a whole session through stdin: /plan, a
// message planned in plan mode, a keep-planning round with typed feedback,
// an approval, the work done in the default mode, /plan <message>, /plan
// off, /help and an unknown command.
func TestRunThroughPipes(t *testing.T) {
	dir := newRunDir(t)
	input := strings.Join([]string{
		"/plan",
		"Add Goodbye",
		"maybe", // not an answer
		"k",
		"Mention the README.",
		"a",
		"/plan off",
		"/plan Check again",
		"/plan off",
		"/help",
		"/nope",
		"",
	}, "\n")
	out, _ := mustMain(t, exitOK, input, runArgs(dir, filepath.Join("testdata", "run", "script.yaml"))...)
	goldenFile(t, "run.golden", mask(out))
	if b, err := os.ReadFile(filepath.Join(dir, "ws", "NOTES.md")); err != nil || string(b) != "Goodbye added.\n" {
		t.Errorf("NOTES.md = %q, %v", b, err)
	}

	// The session file records the whole story.
	file := strings.TrimPrefix(regexp.MustCompile(`(?m)^session file: .*$`).FindString(out), "session file: ")
	out2, _ := mustMain(t, exitOK, "", "inspect", file)
	if got := strings.Count(out2, "▍Plan: "); got != 2 {
		t.Errorf("inspect shows %d reviews, want 2:\n%s", got, out2)
	}
}

func TestRunResumesASession(t *testing.T) {
	dir := newRunDir(t)
	first := writeScript(t, dir, "first.yaml", "steps:\n  - text: Planning.\n")
	out, _ := mustMain(t, exitOK, "/plan Think first\n", runArgs(dir, first)...)
	id := regexp.MustCompile(`(?m)^session (\S+) \(`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("no session line in:\n%s", out)
	}

	second := writeScript(t, dir, "second.yaml", "steps:\n  - text: Still planning.\n")
	out2, _ := mustMain(t, exitOK, "And now?\n", runArgs(dir, second, "-session", id[1])...)
	goldenFile(t, "run-resume.golden", mask(out2))

	_, errOut3 := mustMain(t, exitUsage, "", runArgs(dir, second, "-session", "missing")...)
	if !strings.Contains(errOut3, "session not found") {
		t.Errorf("stderr = %q", errOut3)
	}
}

func TestRunReviewEndings(t *testing.T) {
	review := "steps:\n  - toolCalls:\n      - name: exit_plan_mode\n        input: {plan: \"# P\\n\\nDo it.\"}\n  - text: I will wait.\n"
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{
			name:  "dismissing the review",
			input: "/plan Go\nd\n",
			want:  []string{"Plan dismissed.", "assistant: I will wait."},
		},
		{
			name:  "input ending during the review",
			input: "/plan Go\n",
			want:  []string{"Plan dismissed.", "assistant: I will wait."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRunDir(t)
			script := writeScript(t, dir, "s.yaml", review)
			out, _ := mustMain(t, exitOK, tt.input, runArgs(dir, script)...)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// waitFor polls buf until it contains want.
func waitFor(t *testing.T, buf *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(buf.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %q in:\n%s", want, buf)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRunCtrlC(t *testing.T) {
	tests := []struct {
		name   string
		script string
		// waitBefore is the output that shows the turn is where the
		// first Ctrl-C should hit it.
		waitBefore string
		wantAfter  []string
	}{
		{
			name:       "while the model works",
			script:     "steps:\n  - block: true\n",
			waitBefore: "── plan mode on ──",
			wantAfter:  []string{present.English.Console.Cancelling, "turn 1 ended: cancelled"},
		},
		{
			name:       "while a plan is under review",
			script:     "steps:\n  - toolCalls:\n      - name: exit_plan_mode\n        input: {plan: \"# P\"}\n",
			waitBefore: present.English.Console.MenuEnd,
			wantAfter:  []string{present.English.Console.Cancelling, "Plan closed when the turn was cancelled.", "turn 1 ended: cancelled"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRunDir(t)
			script := writeScript(t, dir, "s.yaml", tt.script)
			stdin, feed := io.Pipe()
			defer feed.Close()
			p, out, errOut, sigs := testProgram(t, "")
			p.stdin = stdin
			done := make(chan int, 1)
			go func() { done <- p.main(runArgs(dir, script)) }()

			if _, err := io.WriteString(feed, "/plan Go\n"); err != nil {
				t.Fatal(err)
			}
			waitFor(t, out, tt.waitBefore)
			sigs <- os.Interrupt
			for _, w := range tt.wantAfter {
				waitFor(t, out, w)
			}
			sigs <- os.Interrupt
			select {
			case code := <-done:
				if code != exitOK {
					t.Errorf("exit code = %d\n%s", code, errOut)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("a second Ctrl-C did not exit:\n%s", out)
			}
			waitFor(t, out, present.English.Console.Bye)
		})
	}
}

// TestRunTurnErrorShownOnce protects piped output from showing a failed
// turn twice (once from the log, once from the transcript).
func TestRunTurnErrorShownOnce(t *testing.T) {
	dir := newRunDir(t)
	script := writeScript(t, dir, "err.yaml", "steps:\n  - error: boom from the model\n")
	out, errOut := mustMain(t, exitOK, "hi\n", runArgs(dir, script)...)
	all := out + errOut
	if n := strings.Count(all, "boom from the model"); n != 1 {
		t.Errorf("the error is shown %d times:\n%s", n, all)
	}
}
