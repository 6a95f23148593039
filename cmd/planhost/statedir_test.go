package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunRefusesSessionsInsideWorkspace protects the session logs from the
// model's write_file: planhost run does not start when the sessions
// directory lies inside the workspace (directly or through a symbolic
// link) or the workspace inside it, and says how to fix it.
func TestRunRefusesSessionsInsideWorkspace(t *testing.T) {
	dir := newRunDir(t)
	ws := filepath.Join(dir, "ws")
	if err := os.Symlink(filepath.Join(ws, "hidden"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join("testdata", "run", "script.yaml")
	base := []string{"run", "-config", filepath.Join("testdata", "run", "deploy.yaml"), "-model", "scripted:" + script}
	tests := []struct {
		name, workspace, sessions, want string
	}{
		{"sessions inside the workspace", ws, filepath.Join(ws, ".sessions"), "is inside the workspace"},
		{"sessions are the workspace", ws, ws, "is inside the workspace"},
		{"sessions through a link", ws, filepath.Join(dir, "link", "s"), "is inside the workspace"},
		{"workspace inside the sessions", filepath.Join(ws, "sub"), ws, "the workspace"},
	}
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, out, errOut, _ := testProgram(t, "hello\n")
			args := append(append([]string{}, base...), "-workspace", tt.workspace, "-sessions", tt.sessions)
			if code := p.main(args); code != exitUsage {
				t.Fatalf("exit code = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitUsage, out, errOut)
			}
			msg := errOut.String()
			if !strings.Contains(msg, tt.want) || !strings.Contains(msg, "pass -") {
				t.Errorf("stderr = %q; want %q and how to fix it", msg, tt.want)
			}
			if strings.Contains(out.String(), "session ") {
				t.Errorf("a session was started:\n%s", out)
			}
		})
	}
}

// TestRunToolsReadBesideTheState protects ordinary use from the state
// check: with the sessions directory outside the workspace, read_file and
// search work on the workspace's files.
func TestRunToolsReadBesideTheState(t *testing.T) {
	dir := newRunDir(t)
	if err := os.WriteFile(filepath.Join(dir, "ws", "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := writeScript(t, dir, "s.yaml", "steps:\n  - toolCalls:\n      - name: read_file\n        input: {path: a.txt}\n      - name: search\n        input: {pattern: alpha}\n  - text: done\n")
	out, _ := mustMain(t, exitOK, "read it\n", runArgs(dir, script)...)
	checkHas(t, "output", out, "← alpha", "← a.txt:1: alpha")
}
