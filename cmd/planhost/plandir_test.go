package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writePlanFileDeploy writes a deployment enabling plan-file with dir (as
// written in the file) to path.
func writePlanFileDeploy(t *testing.T, path, dir string) string {
	t.Helper()
	yaml := "plugins:\n  plan-mode:\n    section: Plan first.\n  plan-file:\n    dir: " + dir + "\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunRefusesPlanDirectoryInsideWorkspace protects the plans under
// review from the model's write_file, as the session logs are: a plan
// directory inside the workspace (also through a link, also as the
// deployment's relative default next to a deployment file kept in the
// workspace), or a workspace inside it, is refused before any session
// starts, with how to fix it.
func TestRunRefusesPlanDirectoryInsideWorkspace(t *testing.T) {
	dir := newRunDir(t)
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "hidden"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join("testdata", "run", "script.yaml")
	tests := []struct {
		name, workspace, deploy, planDir, want string
	}{
		{"plans inside the workspace", ws, filepath.Join(dir, "a.yaml"), filepath.Join(ws, ".plans"), "is inside the workspace"},
		{"plans are the workspace", ws, filepath.Join(dir, "b.yaml"), ws, "is inside the workspace"},
		{"plans through a link", ws, filepath.Join(dir, "c.yaml"), filepath.Join(dir, "link", "p"), "is inside the workspace"},
		{"the relative default beside a deployment file in the workspace", ws, filepath.Join(ws, "deploy.yaml"), "plans", "is inside the workspace"},
		{"workspace inside the plans", filepath.Join(ws, "sub"), filepath.Join(dir, "d.yaml"), ws, "the workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := writePlanFileDeploy(t, tt.deploy, tt.planDir)
			p, out, errOut, _ := testProgram(t, "hello\n")
			args := []string{"run", "-config", cfg, "-model", "scripted:" + script, "-workspace", tt.workspace, "-sessions", filepath.Join(dir, "sessions")}
			if code := p.main(args); code != exitUsage {
				t.Fatalf("exit code = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitUsage, out, errOut)
			}
			msg := errOut.String()
			if !strings.Contains(msg, tt.want) || !strings.Contains(msg, "plan directory") || !strings.Contains(msg, "pass -workspace") {
				t.Errorf("stderr = %q; want %q, the plan directory and how to fix it", msg, tt.want)
			}
			if strings.Contains(out.String(), "session ") {
				t.Errorf("a session was started:\n%s", out)
			}
		})
	}
}

// TestACPKeepsThePlanDirectoryOutOfItsWorkspaces: planhost acp refuses a
// session whose cwd lies inside the plan directory, and the tools of a
// session whose cwd holds it never write there.
func TestACPKeepsThePlanDirectoryOutOfItsWorkspaces(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	plans := filepath.Join(ws, "plans")
	if err := os.MkdirAll(filepath.Join(plans, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := writePlanFileDeploy(t, filepath.Join(dir, "deploy.yaml"), plans)
	script := writeScript(t, dir, "script.yaml", "steps:\n  - toolCalls:\n      - name: write_file\n        input:\n          path: plans/s/plan.md\n          content: \"# Swapped\"\n  - text: Done.\n")
	a := startACP(t, map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "state")}, "-config", cfg, "-model", "scripted:"+script)
	a.call(1, "initialize", `{"protocolVersion":1}`)
	if m := a.call(2, "session/new", `{"cwd":"`+filepath.Join(plans, "sub")+`","mcpServers":[]}`); m["error"] == nil {
		t.Fatalf("session/new inside the plan directory: %v; want an error", m)
	}
	id := a.newSession(3, ws)
	a.call(4, "session/prompt", `{"sessionId":"`+id+`","prompt":[{"type":"text","text":"hi"}]}`)
	a.in.Close()
	a.exit("after stdin closed")
	a.rest()
	if _, err := os.Stat(filepath.Join(plans, "s", "plan.md")); !os.IsNotExist(err) {
		t.Fatalf("write_file reached the plan directory: %v", err)
	}
}
