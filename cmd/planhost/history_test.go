package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
)

// TestHistoryFileIsPrivate protects what the user typed: the history file
// is 0600 in a 0700 directory, an existing 0644 file is tightened, and a
// directory others may enter, or a link in its place, is refused with a
// message that says how to fix it.
func TestHistoryFileIsPrivate(t *testing.T) {
	t.Run("created private", func(t *testing.T) {
		state := t.TempDir()
		path, err := wiring.OpenHistory(state)
		if err != nil {
			t.Fatal(err)
		}
		checkMode(t, filepath.Dir(path), os.ModeDir|0o700)
		checkMode(t, path, 0o600)
	})
	t.Run("an open file is tightened", func(t *testing.T) {
		state := t.TempDir()
		dir := filepath.Join(state, wiring.AppDir)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "history"), []byte("ls\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, "history"), 0o644); err != nil {
			t.Fatal(err)
		}
		path, err := wiring.OpenHistory(state)
		if err != nil {
			t.Fatal(err)
		}
		checkMode(t, path, 0o600)
		if b, _ := os.ReadFile(path); string(b) != "ls\n" {
			t.Errorf("history = %q, want it kept", b)
		}
	})
	refused := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"a directory others may enter", func(t *testing.T, dir string) {
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "chmod 700"},
		{"a link in place of the directory", func(t *testing.T, dir string) {
			if err := os.Symlink(t.TempDir(), dir); err != nil {
				t.Fatal(err)
			}
		}, "is not a directory"},
		{"a link in place of the file", func(t *testing.T, dir string) {
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), filepath.Join(dir, "history")); err != nil {
				t.Fatal(err)
			}
		}, "history file"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			state := t.TempDir()
			tt.setup(t, filepath.Join(state, wiring.AppDir))
			if path, err := wiring.OpenHistory(state); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("openHistoryFile = %q, %v; want an error with %q", path, err, tt.want)
			}
		})
	}
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode() & (os.ModeType | os.ModePerm); got != want {
		t.Errorf("%s: mode %v, want %v", path, got, want)
	}
}

// TestRunWithoutHomeHasNoSharedState protects the user's sessions and
// history from a shared fallback directory: with HOME and XDG_STATE_HOME
// unset, run without -sessions, and run in a terminal, stop with a message
// that says what to set; nothing is written under the system's temporary
// directory.
func TestRunWithoutHomeHasNoSharedState(t *testing.T) {
	dir := newRunDir(t)
	script := filepath.Join("testdata", "run", "script.yaml")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	p, _, errOut, _ := testProgram(t, "")
	args := []string{"run", "-config", filepath.Join("testdata", "run", "deploy.yaml"), "-model", "scripted:" + script, "-workspace", filepath.Join(dir, "ws")}
	if code := p.main(args); code != exitUsage || !strings.Contains(errOut.String(), "set one, or pass -sessions DIR") {
		t.Errorf("without -sessions: exit %d, stderr %q; want a usage error saying what to set", code, errOut)
	}

	p, _, errOut, _ = testProgram(t, "")
	p.terminal = func() bool { return true }
	if code := p.main(runArgs(dir, script)); code != exitUsage || !strings.Contains(errOut.String(), "HOME and XDG_STATE_HOME are unset") {
		t.Errorf("in a terminal: exit %d, stderr %q; want a usage error saying what to set", code, errOut)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("the temporary directory holds %d entries, want none", len(entries))
	}
}
