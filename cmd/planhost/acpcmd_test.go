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
			p, out, errOut, _ := testProgram(t, "")
			if code := p.main(tt.args); code != tt.wantCode {
				t.Fatalf("exit code = %d, want %d\nstderr: %s", code, tt.wantCode, errOut)
			}
			if !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("stderr = %q, want it to name %q", errOut, tt.wantErr)
			}
			if tt.wantCode == exitOK && !strings.Contains(out.String(), "Agent Client Protocol") {
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
		code <- p.main([]string{"acp", "-model", "scripted:" + script, "-log-level", "debug"})
		outW.Close()
	}()
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func() map[string]any {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdout closed; stderr:\n%s", errOut.String())
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil || m["jsonrpc"] != "2.0" {
				t.Fatalf("stdout line %q is not a JSON-RPC message", l)
			}
			return m
		case <-time.After(20 * time.Second):
			t.Fatalf("no message on stdout; stderr:\n%s", errOut.String())
		}
		return nil
	}
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	if m := next(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`not json`)
	if m := next(); m["error"] == nil {
		t.Fatalf("malformed line: %v, want an error response", m)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + ws + `","mcpServers":[]}}`)
	m := next()
	res, _ := m["result"].(map[string]any)
	id, _ := res["sessionId"].(string)
	if id == "" {
		t.Fatalf("session/new: %v", m)
	}
	if _, err := os.Stat(filepath.Join(dir, "state", wiring.AppDir, wiring.SessionsDir, id+".jsonl")); err != nil {
		t.Errorf("the session file is not in the state directory: %v", err)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + id + `","prompt":[{"type":"text","text":"hi"}]}}`)
	var text string
	for {
		m := next()
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
	inW.Close()
	select {
	case c := <-code:
		if c != exitOK {
			t.Errorf("exit code = %d\nstderr:\n%s", c, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("planhost acp did not exit after stdin closed")
	}
	for l := range lines {
		t.Errorf("stdout after the last answer: %q", l)
	}
	if !strings.Contains(errOut.String(), "level=") {
		t.Errorf("no diagnostics on stderr with -log-level debug: %q", errOut.String())
	}
}

func TestACPStopsOnInterrupt(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, "script.yaml", "steps:\n  - block: true\n")
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	var errOut syncBuffer
	p := newProgram(inR, outW, &errOut)
	p.getenv = func(string) string { return "" }
	sigs := make(chan os.Signal, 1)
	p.notifyInterrupt = func() (<-chan os.Signal, func()) { return sigs, func() {} }
	code := make(chan int, 1)
	go func() {
		code <- p.main([]string{"acp", "-model", "scripted:" + script, "-sessions", filepath.Join(dir, "sessions")})
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if !sc.Scan() {
		t.Fatalf("no initialize answer; stderr:\n%s", errOut.String())
	}
	sigs <- os.Interrupt
	select {
	case c := <-code:
		if c != exitOK {
			t.Errorf("exit code = %d\nstderr:\n%s", c, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("planhost acp did not stop on Ctrl-C")
	}
	for sc.Scan() {
	}
}
