package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/present"
)

// demoPaths matches the temporary demo directory in the output.
var demoPaths = regexp.MustCompile(`/\S*` + demoDirPattern + `[^/\s]*(/plans/[0-9a-f]+)?`)

// playDemo plays the demo with args and returns its output, masked.
func playDemo(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut := mustMain(t, exitOK, "", append([]string{"demo"}, args...)...)
	if errOut != "" {
		t.Errorf("stderr = %q, want nothing", errOut)
	}
	return demoPaths.ReplaceAllString(mask(out), "<DIR>")
}

// TestDemoGolden plays each scene, in English and in Chinese, with and
// without the internal lines: each transcript is its golden file.
func TestDemoGolden(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
	}{
		{"demo.golden", nil},
		{"demo-zh.golden", []string{"-lang", "zh"}},
		{"demo-verbose.golden", []string{"-verbose"}},
		{"demo-entry.golden", []string{"-scene", "entry"}},
		{"demo-companions.golden", []string{"-scene", "companions"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			goldenFile(t, tt.golden, playDemo(t, tt.args...))
		})
	}
}

// TestDemoFollowsTheEnvironmentsLanguage: without -lang the demo speaks
// the language LANG names.
func TestDemoFollowsTheEnvironmentsLanguage(t *testing.T) {
	p, out, errOut, _ := testProgram(t, "")
	p.getenv = func(k string) string {
		if k == "LANG" {
			return "zh_CN.UTF-8"
		}
		return ""
	}
	if code := p.main([]string{"demo"}); code != exitOK {
		t.Fatalf("exit code = %d\n%s", code, errOut)
	}
	checkHas(t, "the demo under LANG=zh_CN.UTF-8", out.String(), present.Chinese.Session.ModeOn, present.Chinese.Demo.Removed, "计划审阅：Add Goodbye")
}

// TestDemoKeepsItsDirectory: with -keep the session file and the changed
// workspace stay, and the session file holds the whole story.
func TestDemoKeepsItsDirectory(t *testing.T) {
	out, _ := mustMain(t, exitOK, "", "demo", "-keep")
	file := strings.TrimPrefix(regexp.MustCompile(`(?m)^session file: .*$`).FindString(out), "session file: ")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("session file: %v", err)
	}
	ws := filepath.Join(filepath.Dir(filepath.Dir(file)), "workspace")
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
	out2, _ := mustMain(t, exitOK, "", "inspect", file)
	for _, want := range []string{
		present.English.Session.ModeOn, "Plan sent back with feedback.", "Plan approved.", present.English.Session.ModeOff,
		"· turn 1 ended: completed", "state: plan mode default, pending none",
	} {
		if !strings.Contains(out2, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out2)
		}
	}
}

// TestDemosRemoveTheirDirectoryByDefault: a demo leaves nothing behind
// in the temporary directory unless -keep asks for it.
func TestDemosRemoveTheirDirectoryByDefault(t *testing.T) {
	for _, args := range [][]string{{"demo"}, {"demo", "-scene", "entry"}, {"demo", "-scene", "companions"}, {"demo", "-keep=false"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			p, out, errOut, _ := testProgram(t, "")
			if code := p.main(args); code != exitOK {
				t.Fatalf("exit code = %d\nstderr:\n%s", code, errOut)
			}
			if !strings.HasSuffix(out.String(), present.English.Demo.Removed+"\n") {
				t.Errorf("output does not end with %q", present.English.Demo.Removed)
			}
			entries, err := os.ReadDir(p.tempDir)
			if err != nil || len(entries) != 0 {
				t.Errorf("temporary directory holds %v (%v), want nothing", entries, err)
			}
		})
	}
}

func TestDemoRejectsAnUnknownScene(t *testing.T) {
	p, _, errOut, _ := testProgram(t, "")
	if code := p.main([]string{"demo", "-scene", "nope"}); code != exitUsage || !strings.Contains(errOut.String(), `unknown scene "nope"`) {
		t.Fatalf("exit code = %d, stderr %q", code, errOut)
	}
}

// TestREADMECommands checks that the README's first code block holds
// exactly the two commands that work: the demo, run here as "go run"
// would, and the test command this test is part of.
func TestREADMECommands(t *testing.T) {
	b := readFile(t, filepath.Join("..", "..", "README.md"))
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
	want := []string{"go run ./cmd/planhost demo", "go test -race ./... ./cmd/planhost/... ./adapters/eino/..."}
	if strings.Join(commands, "\n") != strings.Join(want, "\n") {
		t.Fatalf("README's first code block = %q, want %q", commands, want)
	}
	fields := strings.Fields(want[0])
	if pkg, err := filepath.Abs(filepath.Join("..", "..", filepath.FromSlash(fields[2]))); err != nil || !sameDir(t, pkg, ".") {
		t.Fatalf("README runs %s, which is not this command's package", fields[2])
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("LANG", "")
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_MESSAGES", "")
	var out, errOut syncBuffer
	if code := run(fields[3:], strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("%s: exit code = %d\nstderr:\n%s", want[0], code, errOut.String())
	}
	// The transcript is the golden one; the directory is removed.
	if got := demoPaths.ReplaceAllString(mask(out.String()), "<DIR>"); got != readGolden(t, "demo.golden") {
		t.Errorf("the README's demo differs from demo.golden:\n%s", got)
	}
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
		scene string
		// once appears exactly once before the first review's menu.
		once string
	}{
		{scene: "entry", once: "1. Add Goodbye(name string) string to greeter.go"},
		{scene: "companions", once: "Add a Goodbye function next to Hello, tested like Hello."},
	}
	for _, tt := range tests {
		t.Run(tt.scene, func(t *testing.T) {
			out := playDemo(t, "-scene", tt.scene)
			first, _, _ := strings.Cut(out, "┌─ Plan review")
			if n := strings.Count(first, tt.once); n != 1 {
				t.Errorf("%q is shown %d times before the review:\n%s", tt.once, n, first)
			}
			if !strings.Contains(out, "Plan review: Add Goodbye") {
				t.Errorf("the review is not titled by the plan:\n%s", out)
			}
		})
	}
}
