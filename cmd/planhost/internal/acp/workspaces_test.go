package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// errRefused stands for any refusal of the workspace package.
var errRefused = errors.New("refused")

func TestWorkspacesRouteEachCallToItsSessionsRootAndProtectTheState(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	state := filepath.Join(root, ".state", "sessions")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, ".state"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	ws := acp.NewWorkspaces(workspace.Limits{}, workspace.WithForbidden(state))
	t.Cleanup(func() { ws.Close() })
	mem := store.NewMemory()
	s1, _ := mem.Create("s1")
	s2, _ := mem.Create("s2")
	s3, _ := mem.Create("s3")
	if err := ws.Bind("s1", root); err != nil {
		t.Fatal(err)
	}
	if err := ws.Bind("s2", other); err != nil {
		t.Fatal(err)
	}
	if err := ws.Bind("s4", "relative/dir"); err == nil {
		t.Error("Bind accepted a relative root")
	}
	tools := map[string]host.Tool{}
	for _, tool := range ws.Tools() {
		tools[tool.Definition().Name] = tool
	}
	write := func(s host.Session, path string) error {
		in, _ := json.Marshal(map[string]string{"path": path, "content": "x"})
		_, err := tools[workspace.WriteFileName].Execute(context.Background(), host.CallContext{Agent: asker{s}, CallID: "c"}, in)
		return err
	}
	tests := []struct {
		name    string
		s       host.Session
		path    string
		wantErr error
		wantAt  string
	}{
		{"ordinary file", s1, "a.txt", nil, filepath.Join(root, "a.txt")},
		{"other session's root", s2, "a.txt", nil, filepath.Join(other, "a.txt")},
		{"into the state", s1, ".state/sessions/x.jsonl", workspace.ErrForbidden, ""},
		{"the state directory itself", s1, ".state/sessions", workspace.ErrForbidden, ""},
		{"through a symbolic link", s1, "link/sessions/x.jsonl", errRefused, ""},
		{"beside the state", s1, ".state/notes.txt", nil, filepath.Join(root, ".state", "notes.txt")},
		{"unbound session", s3, "a.txt", acp.ErrNoWorkspace, ""},
		{"no agent", nil, "a.txt", acp.ErrNoWorkspace, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.s == nil {
				in, _ := json.Marshal(map[string]string{"path": tt.path, "content": "x"})
				_, err = tools[workspace.WriteFileName].Execute(context.Background(), host.CallContext{}, in)
			} else {
				err = write(tt.s, tt.path)
			}
			refused := errors.Is(err, workspace.ErrForbidden) || errors.Is(err, workspace.ErrOutside)
			if tt.wantErr == errRefused && refused {
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("write %s: err = %v, want %v", tt.path, err, tt.wantErr)
			}
			if tt.wantAt != "" {
				if got, err := os.ReadFile(tt.wantAt); err != nil || string(got) != "x" {
					t.Errorf("%s = %q, %v; want the write there", tt.wantAt, got, err)
				}
			}
		})
	}
	if root, ok := ws.Root("s1"); !ok || root == "" {
		t.Errorf("Root(s1) = %q, %v", root, ok)
	}
	ws.Unbind("s1")
	if err := write(s1, "b.txt"); !errors.Is(err, acp.ErrNoWorkspace) {
		t.Errorf("after Unbind: err = %v, want ErrNoWorkspace", err)
	}
}
