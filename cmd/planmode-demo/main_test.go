package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestDemoPlaysTheWholeSession: the light demo enters plan mode, reviews a
// plan twice (sent back with feedback, then approved, with the revision's
// diff), leaves plan mode and carries the plan out.
func TestDemoPlaysTheWholeSession(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	rest := out.String()
	for _, want := range []string{
		lineStart, lineModeOn, "→ read_file(greeter.go)", "→ exit_plan_mode", "# Add Goodbye", "Keep planning: " + feedback,
		lineChanged, "+3. Show `Goodbye` in the README's usage section.", "reviewer: Approve", lineModeOff,
		"→ write_file(greeter.go)", "The session ended in the default mode",
	} {
		i := strings.Index(rest, want)
		if i < 0 {
			t.Fatalf("the transcript lacks %q (in order):\n%s", want, out.String())
		}
		rest = rest[i+len(want):]
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("a line ends in a space: %q", l)
		}
	}
}

// TestVisible: control and invisible formatting characters are shown as
// escapes.
func TestVisible(t *testing.T) {
	tests := []struct{ give, want string }{
		{"plain text", "plain text"},
		{"a\x1b[2Jb", `a\u001b[2Jb`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"bidi \u202eevil", `bidi \u202eevil`},
		{"line\nbreak", `line\u000abreak`},
	}
	for _, tt := range tests {
		if got := visible(tt.give); got != tt.want {
			t.Errorf("visible(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

// TestREADMEStartsWithThisDemo: the first command of both READMEs' first
// code block runs this package, the second runs the tests.
func TestREADMEStartsWithThisDemo(t *testing.T) {
	for _, name := range []string{"README.md", "README.zh.md"} {
		f, err := os.Open(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		var cmds []string
		in := false
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if strings.HasPrefix(line, "```") {
				if in {
					break
				}
				in = true
				continue
			}
			if cmd, _, _ := strings.Cut(line, "#"); in && strings.TrimSpace(cmd) != "" {
				cmds = append(cmds, strings.Join(strings.Fields(cmd), " "))
			}
		}
		f.Close()
		want := []string{"go run ./cmd/planmode-demo", "go test -race ./... ./cmd/planhost/..."}
		if strings.Join(cmds, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s's first code block = %q, want %q", name, cmds, want)
		}
	}
}
