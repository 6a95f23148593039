package acp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/fakeopenai"
	"github.com/dshgo/planmode/host"
)

// TestNodeClientModelPerMode lets the official TypeScript ACP SDK
// (testdata/node-client/models.mjs) drive "planhost acp -model openai
// -plan-model planner" against two fake OpenAI-compatible endpoints: the
// plan-mode model plans, the review offers "carry out the plan with doer"
// as an allow_once option, the client picks it, and the default model
// carries the plan out. The test checks which endpoint got which steps
// (and the model each request named), that the log records the choice
// (executeWith) and each step's model, and every message against the
// protocol's schemas.
func TestNodeClientModelPerMode(t *testing.T) {
	node, npmSchema := interopClient(t)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "planhost")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/dshgo/planmode/cmd/planhost").CombinedOutput(); err != nil {
		t.Fatalf("go build planhost: %v\n%s", err, out)
	}
	plan := "# Add Goodbye\n\n1. Add Goodbye next to Hello."
	exitArgs, _ := json.Marshal(map[string]string{"plan": plan})
	planSrv := fakeopenai.New(fakeopenai.Options{APIKey: "plan-key", Strict: true},
		fakeopenai.Reply{Text: "Here is my plan.", Calls: []fakeopenai.Call{{ID: "plan-1", Name: planmode.ExitToolName, Arguments: string(exitArgs)}}},
		// Only when the review is not approved: the turn then ends and the
		// client's checks say what went wrong.
		fakeopenai.Reply{Text: "I keep planning."},
	)
	defer planSrv.Close()
	defSrv := fakeopenai.New(fakeopenai.Options{APIKey: "k", Strict: true},
		fakeopenai.Reply{Text: "Reading first.", Calls: []fakeopenai.Call{{ID: "read-1", Name: "read_file", Arguments: `{"path":"greeter.go"}`}}},
		fakeopenai.Reply{Text: "Goodbye added."},
	)
	defer defSrv.Close()

	ws := workspaceDir(t)
	sessions := filepath.Join(tmp, "sessions")
	transcript := filepath.Join(tmp, "transcript.jsonl")
	config, err := filepath.Abs("testdata/interop-models-deploy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "models.mjs", bin, sessions, ws, transcript, config, "planner")
	cmd.Dir = nodeClientDir
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(tmp, "state"), "LC_ALL=", "LC_MESSAGES=", "LANG=C.UTF-8",
		"OPENAI_BASE_URL="+defSrv.BaseURL(), "OPENAI_MODEL=doer", "OPENAI_API_KEY=k",
		"PLAN_OPENAI_BASE_URL="+planSrv.BaseURL(), "PLAN_OPENAI_API_KEY=plan-key", "PLAN_OPENAI_MODEL=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	t.Logf("node client:\n%s", stderr.String())
	if err != nil {
		t.Fatalf("node models.mjs: %v", err)
	}
	if !strings.Contains(stderr.String(), "all checks passed") {
		t.Fatalf("the node client did not finish its walk")
	}

	// The plan-mode model got the planning step, the default model the
	// steps after the approval; each request named its model.
	if n := len(planSrv.Requests()); n != 1 {
		t.Errorf("plan endpoint requests = %d; want 1 (the planning step)", n)
	}
	if n := len(defSrv.Requests()); n != 2 {
		t.Errorf("default endpoint requests = %d; want 2 (the steps after the approval)", n)
	}
	for name, srv := range map[string]*fakeopenai.Server{"planner": planSrv, "doer": defSrv} {
		for _, r := range srv.Requests() {
			if r.Body["model"] != name {
				t.Errorf("a request to %s's endpoint names model %v", name, r.Body["model"])
			}
		}
	}

	// The log records each step's model and the choice.
	m := regexp.MustCompile(`(?m)^session (\S+)$`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("the client printed no session ID:\n%s", stdout.String())
	}
	var models []string
	var results []host.ToolResult
	for _, e := range readLog(t, filepath.Join(sessions, m[1]+".jsonl")) {
		switch e.Type {
		case host.TypeStepStart:
			var s host.StepStart
			if err := json.Unmarshal(e.Data, &s); err != nil {
				t.Fatal(err)
			}
			models = append(models, s.Model)
		case host.TypeToolResult:
			var r host.ToolResult
			if json.Unmarshal(e.Data, &r) == nil && r.Name == planmode.ExitToolName {
				results = append(results, r)
			}
		}
	}
	if got := strings.Join(models, ","); got != "planner,doer,doer" {
		t.Errorf("step models = %q; want planner,doer,doer", got)
	}
	if len(results) != 1 || results[0].IsError || results[0].Outcome != string(planmode.ExitApproved) ||
		results[0].Output != `{"approved":true,"executeWith":"doer"}` {
		t.Errorf("exit_plan_mode results %+v; want an approval recording executeWith doer", results)
	}

	var fromAgent, fromClient [][]byte
	for _, rec := range readTranscript(t, transcript) {
		switch rec.From {
		case "agent":
			fromAgent = append(fromAgent, []byte(rec.Line))
		case "client":
			fromClient = append(fromClient, []byte(rec.Line))
		}
	}
	if len(fromAgent) < 6 || len(fromClient) < 4 {
		t.Fatalf("transcript has %d agent and %d client messages; want the whole walk", len(fromAgent), len(fromClient))
	}
	for _, s := range []*protocolSchema{goSDKSchema(t), loadSchema(t, npmSchema)} {
		if n, want := checkTraffic(t, s, fromAgent, fromClient), len(fromAgent)+len(fromClient); n != want {
			t.Errorf("checked %d of %d messages against %s", n, want, s.name)
		}
	}
}

// transcriptLine is one line of a Node client's transcript.
type transcriptLine struct {
	Conn       int
	From, Line string
}

// readTranscript reads a Node client's transcript.
func readTranscript(t *testing.T, path string) []transcriptLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []transcriptLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var rec transcriptLine
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("transcript: %v", err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// readLog reads the events of a session file.
func readLog(t *testing.T, path string) []host.Event {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var events []host.Event
	for _, line := range bytes.Split(b, []byte("\n")) {
		var e host.Event
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &e) == nil {
			events = append(events, e)
		}
	}
	return events
}
