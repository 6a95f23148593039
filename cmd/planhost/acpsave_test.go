package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/saveplan"
)

// TestACPSaveIsNoApproval protects "Save plan and stop" over ACP: the
// review's permission request offers it as a reject_once option (it
// approves nothing), and choosing it saves the plan and leaves plan mode.
func TestACPSaveIsNoApproval(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, "script.yaml", `steps:
  - toolCalls:
      - name: exit_plan_mode
        input:
          plan: |
            # Add Goodbye

            1. Add it.
  - text: Stopped.
`)
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}
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
		code <- p.main([]string{"acp", "-model", "scripted:" + script})
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
	var saveID string
	for _, o := range options {
		o, _ := o.(map[string]any)
		if o["name"] == saveplan.Label {
			saveID, _ = o["optionId"].(string)
			if o["kind"] != "reject_once" {
				t.Errorf("the save option is %v, want reject_once: it approves nothing", o["kind"])
			}
		}
	}
	if saveID == "" {
		t.Fatalf("no save option in %v", options)
	}
	reqID, _ := json.Marshal(req["id"])
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":%q}}}`, reqID, saveID))
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
	res2 := exitResults(t, sessionEvents(t, filepath.Join(dir, "state", appDirName)))
	if len(res2) != 1 || res2[0].IsError || !saveplan.Saved(res2[0].Output) {
		t.Errorf("exit results %+v", res2)
	}
}
