//go:build unix

package workspace_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
)

// within runs f and fails the test if it does not return within a few
// seconds (a hang).
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool call hangs")
	}
}

// TestFIFONeverHangsTheTools protects the session from a FIFO in the
// workspace: read_file refuses it at once, search skips it (or refuses it
// when named), and a cancelled call ends.
func TestFIFONeverHangsTheTools(t *testing.T) {
	dir, _ := fixture(t)
	if err := syscall.Mkfifo(filepath.Join(dir, "src", "pipe"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	if err := os.Symlink("src/pipe", filepath.Join(dir, "pipelink")); err != nil {
		t.Fatal(err)
	}
	w := open(t, dir, workspace.Limits{})
	tests := []struct {
		name, tool, input, want, wantErr string
	}{
		{"read_file refuses the FIFO", workspace.ReadFileName, `{"path":"src/pipe"}`, "", "not a regular file"},
		{"read_file refuses a link to it", workspace.ReadFileName, `{"path":"pipelink"}`, "", "not a regular file"},
		{"search skips it", workspace.SearchName, `{"pattern":"package"}`, "src/main.go:1", ""},
		{"search refuses it by name", workspace.SearchName, `{"pattern":"x","path":"src/pipe"}`, "", "not a regular file"},
		{"write_file refuses it", workspace.WriteFileName, `{"path":"src/pipe","content":"x"}`, "", "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			within(t, func() {
				got, err := call(t, tool(t, w, tt.tool), tt.input)
				switch {
				case tt.wantErr != "":
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Errorf("got %q, %v; want error %q", got, err, tt.wantErr)
					}
				case err != nil || !strings.Contains(got, tt.want):
					t.Errorf("got %q, %v; want %q", got, err, tt.want)
				}
			})
		})
	}
	t.Run("a cancelled call ends", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for _, name := range []string{workspace.ReadFileName, workspace.SearchName} {
			within(t, func() {
				in := json.RawMessage(`{"path":"src/pipe","pattern":"x"}`)
				if name == workspace.ReadFileName {
					in = json.RawMessage(`{"path":"src/pipe"}`)
				}
				if _, err := tool(t, w, name).Execute(ctx, host.CallContext{}, in); err == nil {
					t.Errorf("%s ran after the turn was cancelled", name)
				}
			})
		}
	})
}

// TestWriteFileNeverWritesThroughAPlantedLink protects files outside the
// workspace: a hard link (or a symbolic link) planted at the name an
// earlier write_file used for its temporary file is not written through.
func TestWriteFileNeverWritesThroughAPlantedLink(t *testing.T) {
	dir, outside := fixture(t)
	victim := filepath.Join(outside, "secret.txt")
	if err := os.Link(victim, filepath.Join(dir, ".README.md.tmp")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, ".NEW.md.tmp")); err != nil {
		t.Fatal(err)
	}
	w := open(t, dir, workspace.Limits{})
	for _, in := range []string{`{"path":"README.md","content":"overwritten"}`, `{"path":"NEW.md","content":"new"}`} {
		if _, err := call(t, tool(t, w, workspace.WriteFileName), in); err != nil {
			t.Fatalf("write_file %s: %v", in, err)
		}
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != secret+"\n" {
		t.Errorf("the file outside = %q, %v; want it unchanged", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "README.md")); err != nil || string(b) != "overwritten" {
		t.Errorf("README.md = %q, %v", b, err)
	}
	// No temporary file is left behind.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") && e.Name() != ".README.md.tmp" && e.Name() != ".NEW.md.tmp" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
