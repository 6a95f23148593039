package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
)

func TestACPUsageErrors(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, "script.yaml", "steps:\n  - text: hi\n")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"help", []string{"acp", "-h"}, exitOK, ""},
		{"extra argument", []string{"acp", "extra"}, exitUsage, "unexpected arguments"},
		{"bad log level", []string{"acp", "-log-level", "loud", "-model", "scripted:x"}, exitUsage, "-log-level"},
		{"missing config", []string{"acp", "-config", filepath.Join(dir, "none.yaml")}, exitUsage, "none.yaml"},
		{"bad model", []string{"acp", "-model", "bogus", "-sessions", dir}, exitUsage, `-model "bogus"`},
		{"no state directory", []string{"acp", "-model", "scripted:" + script}, exitUsage, "no state directory"},
		{"missing script", []string{"acp", "-model", "scripted:" + filepath.Join(dir, "none.yaml"), "-sessions", dir}, exitUsage, "none.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut := mustMain(t, tt.wantCode, "", tt.args...)
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr = %q, want it to name %q", errOut, tt.wantErr)
			}
			if tt.wantCode == exitOK && !strings.Contains(out, "Agent Client Protocol") {
				t.Errorf("usage = %q", out)
			}
		})
	}
}

// TestACPServesOnlyProtocolMessagesOnStdout runs "planhost acp" on pipes:
// every stdout line is a JSON-RPC message, a malformed line is answered
// with an error, and closing stdin ends the program with exit 0.
func TestACPServesOnlyProtocolMessagesOnStdout(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, "script.yaml", "steps:\n  - text: Hello from the script.\n")
	ws := mkdir(t, dir, "ws")
	a := startACP(t, map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "state")}, "-model", "scripted:"+script, "-log-level", "debug")
	if m := a.call(1, "initialize", `{"protocolVersion":1}`); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	a.send(`not json`)
	if m := a.next(); m["error"] == nil {
		t.Fatalf("malformed line: %v, want an error response", m)
	}
	id := a.newSession(2, ws)
	if _, err := os.Stat(filepath.Join(dir, "state", wiring.AppDir, wiring.SessionsDir, id+".jsonl")); err != nil {
		t.Errorf("the session file is not in the state directory: %v", err)
	}
	a.request(3, "session/prompt", `{"sessionId":"`+id+`","prompt":[{"type":"text","text":"hi"}]}`)
	var text string
	for {
		m := a.next()
		if m["id"] == 3.0 {
			if r, _ := m["result"].(map[string]any); r["stopReason"] != "end_turn" {
				t.Errorf("prompt: %v", m)
			}
			break
		}
		if params, ok := m["params"].(map[string]any); ok {
			if u, ok := params["update"].(map[string]any); ok && u["sessionUpdate"] == "agent_message_chunk" {
				text += u["content"].(map[string]any)["text"].(string)
			}
		}
	}
	if text != "Hello from the script." {
		t.Errorf("agent text = %q", text)
	}
	a.in.Close()
	if c := a.exit("after stdin closed"); c != exitOK {
		t.Errorf("exit code = %d\nstderr:\n%s", c, a.errOut.String())
	}
	for _, l := range a.rest() {
		t.Errorf("stdout after the last answer: %q", l)
	}
	if !strings.Contains(a.errOut.String(), "level=") {
		t.Errorf("no diagnostics on stderr with -log-level debug: %q", a.errOut.String())
	}
}

func TestACPStopsOnInterrupt(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, "script.yaml", "steps:\n  - block: true\n")
	a := startACP(t, nil, "-model", "scripted:"+script, "-sessions", filepath.Join(dir, "sessions"))
	a.call(1, "initialize", `{"protocolVersion":1}`)
	a.sigs <- os.Interrupt
	if c := a.exit("on Ctrl-C"); c != exitOK {
		t.Errorf("exit code = %d\nstderr:\n%s", c, a.errOut.String())
	}
	a.rest()
}
