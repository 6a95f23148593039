package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/fakeopenai"
	"github.com/dshgo/planmode/host"
)

// TestACPModelPerMode runs "planhost acp" with a model per mode: the
// plan is made by the plan-mode model, the review's permission request
// offers "carry out the plan with" the default model as an allow_once
// option, and choosing it approves, records the model in the result and
// sends the next step to the default model.
func TestACPModelPerMode(t *testing.T) {
	dir := t.TempDir()
	planSrv := fakeopenai.New(fakeopenai.Options{APIKey: "pk", Strict: true},
		fakeopenai.Reply{Text: "A plan.", Calls: []fakeopenai.Call{planCall("call_1", "# Add Goodbye\n\n1. Add it.")}},
	)
	defer planSrv.Close()
	defSrv := fakeopenai.New(fakeopenai.Options{APIKey: "k", Strict: true}, fakeopenai.Reply{Text: "Hello done."})
	defer defSrv.Close()
	env := map[string]string{
		"XDG_STATE_HOME":  filepath.Join(dir, "state"),
		"OPENAI_BASE_URL": defSrv.BaseURL(), "OPENAI_MODEL": "doer", "OPENAI_API_KEY": "k",
		envPlanModel: "planner", envPlanBaseURL: planSrv.BaseURL(), envPlanAPIKey: "pk",
	}
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut syncBuffer
	p := newProgram(inR, outW, &errOut)
	p.getenv = func(k string) string { return env[k] }
	code := make(chan int, 1)
	go func() {
		code <- p.main([]string{"acp", "-model", "openai"})
		outW.Close()
	}()
	lines := make(chan map[string]any, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// until reads messages until one satisfies ok.
	until := func(ok func(map[string]any) bool) map[string]any {
		t.Helper()
		for {
			select {
			case m, open := <-lines:
				if !open {
					t.Fatalf("stdout closed; stderr:\n%s", errOut.String())
				}
				if ok(m) {
					return m
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("timed out; stderr:\n%s", errOut.String())
			}
		}
	}
	response := func(id float64) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["id"] == id && m["method"] == nil }
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	until(response(1))
	send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + ws + `","mcpServers":[]}}`)
	res, _ := until(response(2))["result"].(map[string]any)
	id, _ := res["sessionId"].(string)
	send(`{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":"` + id + `","modeId":"plan"}}`)
	if m := until(response(3)); m["error"] != nil {
		t.Fatalf("set_mode: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"` + id + `","prompt":[{"type":"text","text":"plan it"}]}}`)
	req := until(func(m map[string]any) bool { return m["method"] == "session/request_permission" })
	params, _ := req["params"].(map[string]any)
	options, _ := params["options"].([]any)
	var withID string
	for _, o := range options {
		o, _ := o.(map[string]any)
		if o["name"] == "Yes, leave plan mode and carry out the plan with doer" {
			withID, _ = o["optionId"].(string)
			if o["kind"] != "allow_once" {
				t.Errorf("the option is %v, want allow_once: it approves", o["kind"])
			}
		}
	}
	if withID == "" {
		t.Fatalf("no option naming the default model in %v", options)
	}
	reqID, _ := json.Marshal(req["id"])
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":%q}}}`, reqID, withID))
	if r, _ := until(response(4))["result"].(map[string]any); r["stopReason"] != "end_turn" {
		t.Errorf("prompt result %v", r)
	}
	inW.Close()
	select {
	case <-code:
	case <-time.After(20 * time.Second):
		t.Fatal("planhost acp did not exit")
	}
	for range lines {
	}
	events := sessionEvents(t, filepath.Join(dir, "state", appDirName))
	res2 := exitResults(t, events)
	if len(res2) != 1 || res2[0].IsError || !strings.Contains(res2[0].Output, `"executeWith":"doer"`) {
		t.Errorf("exit results %+v", res2)
	}
	var models []string
	for _, e := range events {
		var st host.StepStart
		if e.Type == host.TypeStepStart && json.Unmarshal(e.Data, &st) == nil {
			models = append(models, st.Model)
		}
	}
	if strings.Join(models, ",") != "planner,doer" || len(defSrv.Requests()) != 1 {
		t.Errorf("step models = %q, default requests = %d; want planner,doer and 1", models, len(defSrv.Requests()))
	}
}
