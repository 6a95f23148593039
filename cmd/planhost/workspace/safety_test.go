package workspace_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
)

const sessionLine = `{"seq":1,"type":"user/message","time":"2025-01-02T03:04:05Z","data":{"marker":"SESSION-LOG"}}` + "\n"

// stateFixture is a workspace that (wrongly) holds the host's state
// directory, and a symbolic link that leads into it by another name.
func stateFixture(t testing.TB) (ws, state string) {
	t.Helper()
	ws = t.TempDir()
	state = filepath.Join(ws, "state")
	if err := os.MkdirAll(filepath.Join(state, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "sessions", "s1.jsonl"), []byte(sessionLine), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("state/sessions", filepath.Join(ws, "sneaky")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"logfile":      "state/sessions/s1.jsonl",
		"src/deep":     "../sneaky/../sessions",
		"src/alink":    "a.txt",
		"src/dangling": "nowhere.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "src", "a.txt"), []byte("SESSION-LOG is mentioned here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, state
}

// TestToolsNeverTouchTheStateDirectory protects the session logs from a
// model: with the state directory inside the workspace, no tool reads,
// lists, searches or writes anything under it, by any path.
func TestToolsNeverTouchTheStateDirectory(t *testing.T) {
	ws, state := stateFixture(t)
	w, err := workspace.Open(ws, workspace.Limits{}, workspace.WithForbidden(state))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	forbidden := []struct {
		name, tool, input string
	}{
		{"read the log", workspace.ReadFileName, `{"path":"state/sessions/s1.jsonl"}`},
		{"read through a link", workspace.ReadFileName, `{"path":"sneaky/s1.jsonl"}`},
		{"read through a file link", workspace.ReadFileName, `{"path":"logfile"}`},
		{"read through a link with dots", workspace.ReadFileName, `{"path":"src/deep/s1.jsonl"}`},
		{"rewrite through a file link", workspace.WriteFileName, `{"path":"logfile","content":"forged"}`},
		{"rewrite the log", workspace.WriteFileName, `{"path":"state/sessions/s1.jsonl","content":"forged"}`},
		{"rewrite through a link", workspace.WriteFileName, `{"path":"sneaky/s1.jsonl","content":"forged"}`},
		{"plant a new log", workspace.WriteFileName, `{"path":"state/sessions/s2.jsonl","content":"forged"}`},
		{"plant in a new directory", workspace.WriteFileName, `{"path":"sneaky/new/s3.jsonl","content":"forged"}`},
		{"list the state", workspace.ListFilesName, `{"path":"state"}`},
		{"list through a link", workspace.ListFilesName, `{"path":"sneaky"}`},
		{"search the state", workspace.SearchName, `{"pattern":"SESSION-LOG","path":"state"}`},
		{"search through a link", workspace.SearchName, `{"pattern":"SESSION-LOG","path":"sneaky/s1.jsonl"}`},
	}
	for _, tt := range forbidden {
		t.Run(tt.name, func(t *testing.T) {
			got, err := call(t, tool(t, w, tt.tool), tt.input)
			if !errors.Is(err, workspace.ErrForbidden) {
				t.Fatalf("got %q, %v; want ErrForbidden", got, err)
			}
		})
	}
	b, err := os.ReadFile(filepath.Join(state, "sessions", "s1.jsonl"))
	if err != nil || string(b) != sessionLine {
		t.Errorf("session log = %q, %v; want it unchanged", b, err)
	}
	for _, name := range []string{"s2.jsonl", "new"} {
		if _, err := os.Lstat(filepath.Join(state, "sessions", name)); err == nil {
			t.Errorf("%s was created in the sessions directory", name)
		}
	}

	// Walks from the root leave the state out but show the rest.
	out, err := call(t, tool(t, w, workspace.ListFilesName), `{"recursive":true}`)
	if err != nil || strings.Contains(out, "s1.jsonl") || !strings.Contains(out, "src/a.txt") {
		t.Errorf("list_files = %q, %v; want src/a.txt and no session file", out, err)
	}
	out, err = call(t, tool(t, w, workspace.SearchName), `{"pattern":"SESSION-LOG"}`)
	if err != nil || strings.Contains(out, "s1.jsonl") || !strings.Contains(out, "src/a.txt:1") {
		t.Errorf("search = %q, %v; want src/a.txt only", out, err)
	}
	// Other files stay usable, through links too.
	allowed := []struct{ tool, input string }{
		{workspace.ReadFileName, `{"path":"src/a.txt"}`},
		{workspace.ReadFileName, `{"path":"src/alink"}`},
		{workspace.SearchName, `{"pattern":"mentioned","path":"src/a.txt"}`},
		{workspace.ListFilesName, `{"path":"src"}`},
		{workspace.WriteFileName, `{"path":"src/b.txt","content":"ok"}`},
		{workspace.WriteFileName, `{"path":"src/a.txt","content":"SESSION-LOG is mentioned here\n"}`},
		{workspace.WriteFileName, `{"path":"src/dangling","content":"ok"}`},
		{workspace.WriteFileName, `{"path":"new/dir/c.txt","content":"ok"}`},
	}
	for _, a := range allowed {
		if _, err := call(t, tool(t, w, a.tool), a.input); err != nil {
			t.Errorf("%s %s: %v", a.tool, a.input, err)
		}
	}
}

// TestForbiddenDirectoryCreatedLater protects a state directory that does
// not exist yet when the workspace opens.
func TestForbiddenDirectoryCreatedLater(t *testing.T) {
	ws := t.TempDir()
	state := filepath.Join(ws, "later")
	w, err := workspace.Open(ws, workspace.Limits{}, workspace.WithForbidden(state))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]string{"path": "later/x.jsonl", "content": "forged"})
	_, err = tool(t, w, workspace.WriteFileName).Execute(context.Background(), host.CallContext{}, in)
	if !errors.Is(err, workspace.ErrForbidden) {
		t.Fatalf("write into a state directory made after Open: %v; want ErrForbidden", err)
	}
}

// TestOpenRefusesARootInsideAForbiddenDirectory: the tools' check walks
// only up to the root, so a root that is, or lies inside, a forbidden
// directory (also through a link) is refused when the workspace opens.
func TestOpenRefusesARootInsideAForbiddenDirectory(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	for _, d := range []string{filepath.Join(state, "s1"), filepath.Join(dir, "beside")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(state, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, root string
		refused    bool
	}{
		{"the forbidden directory", state, true},
		{"inside it", filepath.Join(state, "s1"), true},
		{"inside it through a link", filepath.Join(dir, "link", "s1"), true},
		{"beside it", filepath.Join(dir, "beside"), false},
		{"holding it (the tools refuse the paths)", dir, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := workspace.Open(tt.root, workspace.Limits{}, workspace.WithForbidden(state))
			if err == nil {
				w.Close()
			}
			if got := errors.Is(err, workspace.ErrForbidden); got != tt.refused {
				t.Fatalf("Open(%s) = %v; refused %v, want %v", tt.root, err, got, tt.refused)
			}
		})
	}
}

// TestLinkLoopIsNamedAsOne: with a state directory to protect, a symbolic
// link loop in the workspace is reported as a loop, not as a way into the
// host's state; every tool that names it says so.
func TestLinkLoopIsNamedAsOne(t *testing.T) {
	ws, state := stateFixture(t)
	for name, target := range map[string]string{"self": "self", "ping": "pong", "pong": "ping"} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ name, tool, input string }{
		{"read a self link", workspace.ReadFileName, `{"path":"self"}`},
		{"read through a self link", workspace.ReadFileName, `{"path":"self/x.txt"}`},
		{"read a two-link loop", workspace.ReadFileName, `{"path":"ping"}`},
		{"write a self link", workspace.WriteFileName, `{"path":"self","content":"x"}`},
		{"list a self link", workspace.ListFilesName, `{"path":"self"}`},
		{"search a self link", workspace.SearchName, `{"pattern":"x","path":"self"}`},
	}
	for _, opts := range [][]workspace.Option{{workspace.WithForbidden(state)}, nil} {
		w, err := workspace.Open(ws, workspace.Limits{}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s, %d forbidden", tt.name, len(opts)), func(t *testing.T) {
				got, err := call(t, tool(t, w, tt.tool), tt.input)
				if err == nil || errors.Is(err, workspace.ErrForbidden) || !strings.Contains(err.Error(), "symbolic link loop") {
					t.Fatalf("got %q, %v; want an error naming a symbolic link loop", got, err)
				}
			})
		}
	}
}
