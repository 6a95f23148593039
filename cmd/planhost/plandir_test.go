package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut syncBuffer
	p := newProgram(inR, outW, &errOut)
	p.getenv = func(k string) string {
		if k == "XDG_STATE_HOME" {
			return filepath.Join(dir, "state")
		}
		return ""
	}
	code := make(chan int, 1)
	go func() {
		code <- p.main([]string{"acp", "-config", cfg, "-model", "scripted:" + script})
		outW.Close()
	}()
	lines := make(chan map[string]any, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	// answer waits for the response to request id, passing notifications.
	answer := func(id float64) map[string]any {
		t.Helper()
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatalf("stdout closed; stderr:\n%s", errOut.String())
				}
				if m["id"] == id {
					return m
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("no answer to %v; stderr:\n%s", id, errOut.String())
			}
		}
	}
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	answer(1)
	send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + filepath.Join(plans, "sub") + `","mcpServers":[]}}`)
	if m := answer(2); m["error"] == nil {
		t.Fatalf("session/new inside the plan directory: %v; want an error", m)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"` + ws + `","mcpServers":[]}}`)
	res, _ := answer(3)["result"].(map[string]any)
	id, _ := res["sessionId"].(string)
	if id == "" {
		t.Fatal("session/new in the workspace holding the plans failed")
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"` + id + `","prompt":[{"type":"text","text":"hi"}]}}`)
	answer(4)
	inW.Close()
	select {
	case <-code:
	case <-time.After(20 * time.Second):
		t.Fatal("planhost acp did not exit after stdin closed")
	}
	for range lines {
	}
	if _, err := os.Stat(filepath.Join(plans, "s", "plan.md")); !os.IsNotExist(err) {
		t.Fatalf("write_file reached the plan directory: %v", err)
	}
}
