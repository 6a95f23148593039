package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dshgo/planmode/refhost/scripted"
)

func TestDemoGolden(t *testing.T) {
	p, out, errOut, _ := testProgram(t, "")
	if code := p.main([]string{"demo", "-keep"}); code != exitOK {
		t.Fatalf("exit code = %d\nstderr:\n%s", code, errOut)
	}
	goldenFile(t, "demo.golden", mask(out.String()))
	if errOut.String() != "" {
		t.Errorf("stderr = %q, want nothing", errOut)
	}

	// The session file and the changed workspace are kept.
	file := strings.TrimPrefix(regexp.MustCompile(`(?m)^session file: .*$`).FindString(out.String()), "session file: ")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("session file: %v", err)
	}
	ws := filepath.Join(filepath.Dir(filepath.Dir(file)), demoWorkspaceDir)
	for name, want := range map[string]string{
		"greeter.go":      "func Goodbye(name string) string",
		"greeter_test.go": "func TestGoodbye(t *testing.T)",
		"README.md":       `greeter.Goodbye("Ada")`,
	} {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s after the demo: %v; want it to contain %q:\n%s", name, err, want, b)
		}
	}

	// The session file holds the whole story: inspect it.
	p2, out2, errOut2, _ := testProgram(t, "")
	if code := p2.main([]string{"inspect", file}); code != exitOK {
		t.Fatalf("inspect: exit code = %d\n%s", code, errOut2)
	}
	for _, want := range []string{
		"plan/mode active=true", `review of "Add Goodbye": sent back with feedback`, `review of "Add Goodbye": approved`, "plan/mode active=false",
		"turn 1 ended completed", "projection: {active: false, pending: none}",
	} {
		if !strings.Contains(out2.String(), want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out2)
		}
	}
}

// TestDemosRemoveTheirDirectoryByDefault: a demo leaves nothing behind
// in the temporary directory unless -keep asks for it.
func TestDemosRemoveTheirDirectoryByDefault(t *testing.T) {
	for _, args := range [][]string{{"demo"}, {"demo", "-scene", "entry"}, {"demo-companions"}, {"demo", "-keep=false"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			p, out, errOut, _ := testProgram(t, "")
			if code := p.main(args); code != exitOK {
				t.Fatalf("exit code = %d\nstderr:\n%s", code, errOut)
			}
			if !strings.HasSuffix(out.String(), lineDemoRemoved+"\n") {
				t.Errorf("output does not end with %q", lineDemoRemoved)
			}
			entries, err := os.ReadDir(p.tempDir)
			if err != nil || len(entries) != 0 {
				t.Errorf("temporary directory holds %v (%v), want nothing", entries, err)
			}
		})
	}
}

func TestDemoInputsAreValid(t *testing.T) {
	if _, err := scripted.ParseScript(demoScript); err != nil {
		t.Errorf("demo script: %v", err)
	}
	story, err := parseStory(demoStoryYAML)
	if err != nil {
		t.Fatal(err)
	}
	if len(story.Reviews) != 2 || story.Reviews[0].Feedback == "" || story.Reviews[1].Feedback != "" {
		t.Errorf("story reviews = %+v, want one round of feedback and then an approval", story.Reviews)
	}
}

// TestREADMECommands checks that the README's first code block holds
// exactly the two commands that work (the light demo, which its own
// package tests, and the test command this test is part of), and runs the
// full demo the README names next, as "go run" would.
func TestREADMECommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var commands []string
	inBlock := false
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "```") {
			if inBlock {
				break
			}
			inBlock = true
			continue
		}
		if !inBlock {
			continue
		}
		if cmd, _, _ := strings.Cut(line, "#"); strings.TrimSpace(cmd) != "" {
			commands = append(commands, strings.Join(strings.Fields(cmd), " "))
		}
	}
	want := []string{"go run ./cmd/planmode-demo", "go test -race ./... ./cmd/planhost/..."}
	if strings.Join(commands, "\n") != strings.Join(want, "\n") {
		t.Fatalf("README's first code block = %q, want %q", commands, want)
	}

	const full = "go run ./cmd/planhost demo"
	if !strings.Contains(string(b), "`"+full+"`") {
		t.Fatalf("the README does not name the full demo %q", full)
	}
	fields := strings.Fields(full)
	if pkg, err := filepath.Abs(filepath.Join("..", "..", filepath.FromSlash(fields[2]))); err != nil || !sameDir(t, pkg, ".") {
		t.Fatalf("README runs %s, which is not this command's package", fields[2])
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out, errOut syncBuffer
	if code := run(fields[3:], strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("%s: exit code = %d\nstderr:\n%s", full, code, errOut.String())
	}
	// The transcript is the golden one; the directory is removed.
	got := strings.Replace(mask(out.String()), lineDemoRemoved+"\n", "", 1)
	got = strings.Replace(got, "\nsession file:", "\n"+lineDemoKept+"\nsession file:", 1)
	goldenFile(t, "demo.golden", got)
	if entries, err := os.ReadDir(tmp); err != nil || len(entries) != 0 {
		t.Errorf("the demo left %v (%v) in TMPDIR", entries, err)
	}
}

func sameDir(t *testing.T, a, b string) bool {
	t.Helper()
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

// TestDemosShowEachPlanOnceUnderItsTitle: a plan under review is printed
// once, under its own heading, also when the plan is in the plan file
// (plan-file: the call carries none) or a companion adds to it (plan-steps).
func TestDemosShowEachPlanOnceUnderItsTitle(t *testing.T) {
	tests := []struct {
		args []string
		// once appears exactly once; want appears; bad never.
		once, want, bad string
	}{
		{args: []string{"demo", "-scene", "entry"}, once: "1. Add Goodbye(name string) string to greeter.go", want: "▍plan: Add Goodbye", bad: "▍plan: Plan"},
		{args: []string{"demo-companions"}, once: "Add a Goodbye function next to Hello, tested like Hello.", want: "▍plan: Add Goodbye", bad: " 1 deviations"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			p, out, errOut, _ := testProgram(t, "")
			if code := p.main(tt.args); code != exitOK {
				t.Fatalf("exit code = %d\n%s", code, errOut)
			}
			// The first review: up to its menu.
			first, _, _ := strings.Cut(out.String(), "┌─ Plan review")
			if n := strings.Count(first, tt.once); n != 1 {
				t.Errorf("%q is shown %d times before the review:\n%s", tt.once, n, first)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("output lacks %q", tt.want)
			}
			if strings.Contains(out.String(), tt.bad) {
				t.Errorf("output has %q", tt.bad)
			}
		})
	}
}
