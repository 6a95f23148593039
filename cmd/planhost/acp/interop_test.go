package acp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nodeClientDir holds the Node.js interop client and its locked
// dependencies (npm ci installs them; .ci/run does).
const nodeClientDir = "testdata/node-client"

// TestNodeClientInterop builds planhost and lets the official TypeScript
// ACP SDK drive it (testdata/node-client/client.mjs): initialize, a new
// session, plan mode, the plan's steps as a plan update before the review,
// the plan review as a permission request (its options' kinds, title and
// kind checked), approval,
// the mode update back to default, a todo_write whose list arrives as a
// plan update, a switch to plan mode during a second prompt's last model
// request announced before its response, and a load of the session in a second
// process, which then keeps serving through a burst of 3,000
// session/cancel notifications and a prompt of 2 MB of '<'. Every message both sides sent is then checked against the JSON
// schema of the Go SDK and of the npm package.
func TestNodeClientInterop(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is required for the ACP interop test: %v", err)
	}
	npmSchema := filepath.Join(nodeClientDir, "node_modules", "@agentclientprotocol", "sdk", "schema", "v1", "schema.json")
	if _, err := os.Stat(npmSchema); err != nil {
		// A fresh clone: install the locked dependencies, as .ci/run does.
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Fatalf("npm is required to install the ACP interop client's dependencies: %v", err)
		}
		install := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		install.Dir = nodeClientDir
		if out, err := install.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in cmd/planhost/acp/%s: %v\n%s", nodeClientDir, err, out)
		}
	}
	if _, err := os.Stat(npmSchema); err != nil {
		t.Fatalf("the node client's dependencies are missing after npm ci (cmd/planhost/acp/%s): %v", nodeClientDir, err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "planhost")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/dshgo/planmode/cmd/planhost").CombinedOutput(); err != nil {
		t.Fatalf("go build planhost: %v\n%s", err, out)
	}
	ws := workspaceDir(t)
	transcript := filepath.Join(tmp, "transcript.jsonl")
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	cmd := exec.Command(node, "client.mjs", bin, filepath.Join(tmp, "sessions"), ws,
		abs("testdata/interop-script.yaml"), abs("testdata/interop-script-2.yaml"), transcript,
		abs("testdata/interop-deploy.yaml"))
	cmd.Dir = nodeClientDir
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	t.Logf("node client:\n%s", stderr.String())
	if err != nil {
		t.Fatalf("node client.mjs: %v", err)
	}
	if !strings.Contains(stderr.String(), "all checks passed") {
		t.Fatalf("the node client did not finish its walk")
	}
	got, err := os.ReadFile(filepath.Join(ws, "greeter.go"))
	if err != nil || !strings.Contains(string(got), "Goodbye") {
		t.Errorf("greeter.go = %q, %v; want the approved change", got, err)
	}

	// Messages by connection (request ids restart with each).
	fromAgent, fromClient := map[int][][]byte{}, map[int][][]byte{}
	f, err := os.Open(transcript)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var rec struct {
			Conn       int
			From, Line string
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("transcript: %v", err)
		}
		switch rec.From {
		case "agent":
			fromAgent[rec.Conn] = append(fromAgent[rec.Conn], []byte(rec.Line))
		case "client":
			fromClient[rec.Conn] = append(fromClient[rec.Conn], []byte(rec.Line))
		}
	}
	if len(fromAgent) != 2 || len(fromAgent[1]) < 10 || len(fromClient[1]) < 4 || len(fromAgent[2]) < 4 {
		t.Fatalf("transcript has agent messages %d and client messages %d by connection; want the whole walk", len(fromAgent), len(fromClient))
	}
	for _, s := range []*protocolSchema{goSDKSchema(t), loadSchema(t, npmSchema)} {
		for conn := range fromAgent {
			want := len(fromAgent[conn]) + len(fromClient[conn])
			if n := checkTraffic(t, s, fromAgent[conn], fromClient[conn]); n != want {
				t.Errorf("connection %d: checked %d of %d messages against %s", conn, n, want, s.name)
			}
		}
	}
}
