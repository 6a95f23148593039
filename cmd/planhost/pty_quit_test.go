package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ptyRunArgs are the flags of "planhost run" with the test deployment and a
// scripted model, absolute so the binary can run anywhere.
func ptyRunArgs(t *testing.T, dir, script string, extra ...string) []string {
	t.Helper()
	args := runArgs(dir, script, extra...)
	for i, a := range args {
		if i > 0 && args[i-1] == "-config" {
			args[i] = absPath(t, a)
		}
		if file, ok := strings.CutPrefix(a, "scripted:"); ok && file != "" {
			args[i] = "scripted:" + absPath(t, file)
		}
	}
	return args
}

// TestPTYTerminatedRestoresTheTerminal protects the terminal from a
// SIGTERM: planhost leaves the alternate screen and shows the cursor.
func TestPTYTerminatedRestoresTheTerminal(t *testing.T) {
	s, _ := startPlanhost(t, 80, "block.yaml")
	s.send("Hello\r")
	s.waitScreen("working")
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := s.waitExit(5 * time.Second); code != exitOK {
		t.Errorf("exit code %d", code)
	}
	s.checkRestored()
}

// TestPTYExitsPromptly protects against the hangs on leaving a terminal
// session: /quit, Ctrl-C twice and Ctrl-D each end the process at once.
func TestPTYExitsPromptly(t *testing.T) {
	tests := []struct {
		name, keys string
	}{
		{"quit", "/quit\r"},
		{"ctrl-c twice", "\x03\x03"},
		{"ctrl-d", "\x04"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRunDir(t)
			s := startPTY(t, 80, 24, nil, ptyRunArgs(t, dir, filepath.Join("testdata", "run", "script.yaml"))...)
			s.waitFor("session ")
			time.Sleep(100 * time.Millisecond)
			s.send(tt.keys)
			if code := s.waitExit(5 * time.Second); code != exitOK {
				t.Errorf("exit code %d; output:\n%s", code, s.text())
			}
			s.checkRestored()
		})
	}
}
