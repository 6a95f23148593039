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

// npmSchemaPath is the npm package's protocol schema, present once the
// client's dependencies are installed.
var npmSchemaPath = filepath.Join(nodeClientDir, "node_modules", "@agentclientprotocol", "sdk", "schema", "v1", "schema.json")

// interopClient returns node and the npm package's schema, or skips the
// test with a one-line reason when node or the client's dependencies are
// missing; under CI=true it fails instead. The test never installs
// anything itself: "go test" writes nothing into the tree.
func interopClient(t *testing.T) (node, schema string) {
	t.Helper()
	reason := interopMissing(exec.LookPath, func(p string) error { _, err := os.Stat(p); return err })
	switch {
	case reason == "":
	case os.Getenv("CI") == "true":
		t.Fatal(reason)
	default:
		t.Skip("skipped: " + reason + "; CI=true makes this a failure")
	}
	node, _ = exec.LookPath("node")
	return node, npmSchemaPath
}

// interopMissing says what the interop test lacks: node on PATH, or the
// client's installed dependencies; "" when nothing is missing.
func interopMissing(lookPath func(string) (string, error), stat func(string) error) string {
	if _, err := lookPath("node"); err != nil {
		return "ACP interop test: node is not on PATH (install Node.js 20 or later, then run npm ci in cmd/planhost/internal/acp/" + nodeClientDir + ")"
	}
	if stat(npmSchemaPath) != nil {
		return "ACP interop test: the Node client's dependencies are not installed (run npm ci in cmd/planhost/internal/acp/" + nodeClientDir + "; .ci/run does)"
	}
	return ""
}

// TestNodeClientInterop builds planhost and lets the official TypeScript
// ACP SDK drive it (testdata/node-client/client.mjs): initialize, a new
// session, plan mode, the plan's steps as a plan update before the review,
// the plan review as a permission request (its options' kinds, title and
// kind checked), approval,
// the mode update back to default, a todo_write whose list arrives as a
// plan update, a switch to plan mode during a second prompt's last model
// request announced before its response, and a load of the session in a second
// process, which then keeps serving through a burst of 3,000
// session/cancel notifications and a prompt of 2 MB of '<'. A third process,
// on a new session, asks two clarifying questions (one permission request
// each, the first answered with a choice, the second skipped, both in the
// tool's result), has a plan approved, takes "/plan reopen" (a mode update
// to plan) and shows the diff against the reopened plan in the next review.
// Every message both sides sent is then checked against the JSON
// schema of the Go SDK and of the npm package.
func TestNodeClientInterop(t *testing.T) {
	node, npmSchema := interopClient(t)
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
		abs("testdata/interop-deploy.yaml"), abs("testdata/interop-script-3.yaml"))
	cmd.Dir = nodeClientDir
	// The client checks the English words, whatever the machine's language.
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(tmp, "state"), "LC_ALL=", "LC_MESSAGES=", "LANG=C.UTF-8")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
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
	if len(fromAgent) != 3 || len(fromAgent[1]) < 10 || len(fromClient[1]) < 4 || len(fromAgent[2]) < 4 || len(fromAgent[3]) < 4 {
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

// TestInteropSaysWhatIsMissing: without node, or without the client's
// installed dependencies, the interop test names what to install (and is
// skipped outside CI, failed under CI=true) instead of installing it.
func TestInteropSaysWhatIsMissing(t *testing.T) {
	found := func(string) (string, error) { return "/usr/bin/node", nil }
	none := func(string) (string, error) { return "", exec.ErrNotFound }
	exists := func(string) error { return nil }
	missing := func(string) error { return os.ErrNotExist }
	tests := []struct {
		name     string
		lookPath func(string) (string, error)
		stat     func(string) error
		want     string
	}{
		{"everything there", found, exists, ""},
		{"no node", none, exists, "node is not on PATH"},
		{"no node_modules", found, missing, "run npm ci in cmd/planhost/internal/acp/testdata/node-client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := interopMissing(tt.lookPath, tt.stat)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) || strings.Contains(got, "\n") {
				t.Errorf("interopMissing = %q, want one line with %q", got, tt.want)
			}
		})
	}
}
