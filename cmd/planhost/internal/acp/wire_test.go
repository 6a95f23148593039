package acp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/refhost/scripted"
)

// rawConn talks to Serve line by line, without the SDK.
type rawConn struct {
	t    *testing.T
	w    *io.PipeWriter
	out  <-chan []byte
	done chan error
}

func rawConnect(t *testing.T, opts ...func(*acp.Config)) *rawConn {
	t.Helper()
	st := newStore(t)
	h := newHostParts(t, st, scripted.NewModel(scripted.Step{Text: "Hello."}))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &rawConn{t: t, w: inW, out: lines(outR), done: make(chan error, 1)}
	cfg := acp.Config{Runtime: h.rt, Plan: h.plan, Store: st, Workspaces: h.workspaces}
	for _, o := range opts {
		o(&cfg)
	}
	go func() {
		r.done <- acp.Serve(context.Background(), cfg, inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-r.done:
		case <-time.After(waitTimeout):
			t.Error("Serve did not return")
		}
		for range r.out {
		}
	})
	return r
}

func (r *rawConn) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.w, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
}

// next returns the next message with an id (skipping notifications).
func (r *rawConn) next() map[string]any {
	r.t.Helper()
	for {
		select {
		case l, ok := <-r.out:
			if !ok {
				r.t.Fatal("the agent closed its output")
			}
			var m map[string]any
			if err := json.Unmarshal(l, &m); err != nil {
				r.t.Fatalf("agent wrote a line that is not JSON: %q", l)
			}
			if _, ok := m["id"]; ok {
				return m
			}
		case <-time.After(waitTimeout):
			r.t.Fatal("no answer from the agent")
		}
	}
}

// errorOf returns the error code and text of a response.
func errorOf(m map[string]any) (int, string) {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0, ""
	}
	text := e["message"].(string)
	if d, ok := e["data"].(map[string]any); ok {
		if s, ok := d["error"].(string); ok {
			text += ": " + s
		}
	}
	return int(e["code"].(float64)), text
}

func TestMalformedAndOutOfOrderMessagesGetClearErrorsAndTheAgentStaysUp(t *testing.T) {
	r := rawConnect(t)
	cwd := t.TempDir()
	tests := []struct {
		name     string
		line     string
		wantID   any
		wantCode int
		wantText string
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":1,`, nil, -32700, "not valid JSON"},
		{"garbage", `hello`, nil, -32700, "not valid JSON"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, nil, -32600, "batches are not supported"},
		{"wrong version", `{"jsonrpc":"1.0","id":2,"method":"initialize","params":{"protocolVersion":1}}`, 2.0, -32600, `"jsonrpc" must be "2.0"`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}`, nil, -32600, `"id" must be`},
		{"method not a string", `{"jsonrpc":"2.0","id":3,"method":7}`, 3.0, -32600, `"method" must be`},
		{"params a string", `{"jsonrpc":"2.0","id":4,"method":"initialize","params":"x"}`, 4.0, -32600, `"params" must be`},
		{"prompt before initialize", `{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}`, 5.0, -32600, "call initialize before session/prompt"},
		{"new before initialize", fmt.Sprintf(`{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, cwd), 6.0, -32600, "call initialize before session/new"},
		{"initialize", `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1}}`, 7.0, 0, ""},
		{"unknown method", `{"jsonrpc":"2.0","id":8,"method":"session/teleport","params":{}}`, 8.0, -32601, "Method not found"},
		{"keys match exactly", `{"jsonrpc":"2.0","id":18,"Method":"initialize"}`, 18.0, -32600, "without \"method\" must be a response"},
		{"bad params", `{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"cwd":5}}`, 9.0, -32602, ""},
		{"missing cwd", `{"jsonrpc":"2.0","id":10,"method":"session/new","params":{"mcpServers":[]}}`, 10.0, -32602, "cwd is required"},
		{"relative cwd", `{"jsonrpc":"2.0","id":11,"method":"session/new","params":{"cwd":"src","mcpServers":[]}}`, 11.0, -32602, "must be an absolute path"},
		{"unknown session", `{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`, 12.0, -32602, `unknown session "nope"`},
		{"set mode of unknown session", `{"jsonrpc":"2.0","id":13,"method":"session/set_mode","params":{"sessionId":"nope","modeId":"plan"}}`, 13.0, -32602, "unknown session"},
		{"load of a missing session", fmt.Sprintf(`{"jsonrpc":"2.0","id":14,"method":"session/load","params":{"sessionId":"nope","cwd":%q,"mcpServers":[]}}`, cwd), 14.0, -32002, "session not found"},
		{"load of a bad id", fmt.Sprintf(`{"jsonrpc":"2.0","id":15,"method":"session/load","params":{"sessionId":"../etc","cwd":%q,"mcpServers":[]}}`, cwd), 15.0, -32002, "bad session id"},
		{"still up", fmt.Sprintf(`{"jsonrpc":"2.0","id":16,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, cwd), 16.0, 0, ""},
	}
	for _, tt := range tests {
		r.send(tt.line)
		m := r.next()
		if m["id"] != tt.wantID {
			t.Errorf("%s: answer id = %v, want %v (%v)", tt.name, m["id"], tt.wantID, m)
			continue
		}
		code, text := errorOf(m)
		if code != tt.wantCode || !strings.Contains(text, tt.wantText) {
			t.Errorf("%s: error = %d %s, want %d containing %q", tt.name, code, text, tt.wantCode, tt.wantText)
		}
	}
}

func TestOversizedMessageIsRefusedAndTheNextOneServed(t *testing.T) {
	r := rawConnect(t)
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", acp.MaxMessageSize) + `"}}`
	r.send(big)
	code, text := errorOf(r.next())
	if code != -32700 || !strings.Contains(text, "larger than") {
		t.Errorf("oversized message: error = %d %s, want a parse error naming the limit", code, text)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}`)
	if m := r.next(); m["id"] != 2.0 || m["result"] == nil {
		t.Errorf("after the oversized message: %v, want the initialize result", m)
	}
}

func TestInitializeNegotiatesTheProtocolVersion(t *testing.T) {
	tests := []struct {
		give, want float64
	}{
		{1, 1},
		{2, 1}, // a newer client gets ours and decides
		{0, 1},
	}
	r := rawConnect(t)
	for i, tt := range tests {
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":%v}}`, i+1, tt.give))
		m := r.next()
		res, _ := m["result"].(map[string]any)
		if res["protocolVersion"] != tt.want {
			t.Errorf("client version %v: agent answered %v, want %v", tt.give, res["protocolVersion"], tt.want)
		}
	}
}

func FuzzCheckMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"x"}}`,
		`[1,2]`, `null`, `{"id":1}`, `{"jsonrpc":"2.0","id":1.5e3,"method":"x","params":[1]}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", ``, `   `,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/prompt\",\"params\":{\"text\":\"<<>>&&\u2028\"}}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, resp := acp.CheckMessage(line)
		if msg != nil {
			if resp != nil {
				t.Fatalf("passed a line and answered it: %s", resp)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(msg, &m); err != nil {
				t.Fatalf("passed %q as %q, not a JSON object", line, msg)
			}
			var v string
			if json.Unmarshal(m["jsonrpc"], &v) != nil || v != "2.0" {
				t.Fatalf("passed %q as %q, without jsonrpc 2.0", line, msg)
			}
			for k := range m {
				if !slices.Contains([]string{"jsonrpc", "id", "method", "params", "result", "error"}, k) {
					t.Fatalf("passed %q with the member %q", msg, k)
				}
			}
			if msg[len(msg)-1] != '\n' || strings.Count(string(msg), "\n") != 1 {
				t.Fatalf("passed %q, not one line", msg)
			}
			if len(msg) > len(bytes.TrimSpace(line))+1 {
				t.Fatalf("passed %q as %q, longer than it came", line, msg)
			}
			return
		}
		if resp == nil {
			return // a malformed response: dropped unanswered
		}
		var e struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(resp, &e); err != nil || e.JSONRPC != "2.0" || e.Error == nil || e.Error.Message == "" || e.ID == nil {
			t.Fatalf("answer %q to %q is not a JSON-RPC error response", resp, line)
		}
		if resp[len(resp)-1] != '\n' || strings.Count(string(resp), "\n") != 1 {
			t.Fatalf("answer %q is not one line", resp)
		}
	})
}

func TestServeReturnsWhenItsContextEnds(t *testing.T) {
	st := newStore(t)
	model := scripted.NewModel(scripted.Step{Block: true})
	h := newHostParts(t, st, model)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	out := lines(outR)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- acp.Serve(ctx, acp.Config{Runtime: h.rt, Plan: h.plan, Store: st, Workspaces: h.workspaces}, inR, outW)
		outW.Close()
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		for l := range out {
			var m map[string]any
			if json.Unmarshal(l, &m) == nil && m["id"] != nil {
				return m
			}
		}
		t.Fatal("output closed")
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	next()
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, t.TempDir()))
	res, _ := next()["result"].(map[string]any)
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"wait"}]}}`, res["sessionId"]))
	if err := model.WaitCalls(ctxT(t), 1); err != nil {
		t.Fatal(err)
	}
	cancel() // a turn is running
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("Serve did not return after its context ended")
	}
	inW.Close() // lets the input filter end
	for range out {
	}
	if h.rt.Stop(ctxT(t)) != nil {
		t.Error("runtime did not stop")
	}
}

func BenchmarkCheckMessage(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"sessionId":"0123456789abcdef","prompt":[{"type":"text","text":"Add a Goodbye function next to Hello and test it."}]}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if msg, _ := acp.CheckMessage(line); msg == nil {
			b.Fatal("refused a valid message")
		}
	}
}

// TestLargePromptOfEscapedCharactersIsServed: a prompt of 2 MB of '<'
// (each of which JSON's HTML escaping would write as six bytes) is
// answered, and the agent serves the next message.
func TestLargePromptOfEscapedCharactersIsServed(t *testing.T) {
	tests := []struct{ name, text string }{
		{"less-than", strings.Repeat("<", 2<<20)},
		{"ampersands and line separators", strings.Repeat("&>\u2028", 500<<10)},
	}
	r := rawConnect(t)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	r.next()
	r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, t.TempDir()))
	res, _ := r.next()["result"].(map[string]any)
	for i, tt := range tests {
		id := 10 + 2*i
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":%q}]}}`, id, res["sessionId"], tt.text))
		if m := r.next(); m["id"] != float64(id) {
			t.Fatalf("%s: answer %v, want one to request %d", tt.name, m, id)
		}
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":1}}`, id+1))
		if m := r.next(); m["id"] != float64(id+1) || m["result"] == nil {
			t.Fatalf("%s: after the prompt: %v, want the initialize result", tt.name, m)
		}
	}
}

// slowWriter is a diagnostics output that takes its time (a busy terminal
// or pipe).
type slowWriter struct{}

func (slowWriter) Write(p []byte) (int, error) {
	time.Sleep(100 * time.Microsecond)
	return len(p), nil
}

// TestNotificationBurstKeepsTheAgentServing: thousands of notifications
// at once (unknown ones, extension ones, cancels of unknown sessions and
// malformed cancels) are dropped or handled, never the connection, even
// when each handled one takes its time (its diagnostic goes to a slow
// logger); the request after them is answered.
func TestNotificationBurstKeepsTheAgentServing(t *testing.T) {
	tests := []struct{ name, line string }{
		{"unknown", `{"jsonrpc":"2.0","method":"session/teleport","params":{}}`},
		{"extension", `{"jsonrpc":"2.0","method":"_vendor/ping"}`},
		{"cancel of an unknown session", `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}`},
		{"cancel without params", `{"jsonrpc":"2.0","method":"session/cancel"}`},
		{"cancel with bad params", `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":7}}`},
		{"cancel request", `{"jsonrpc":"2.0","id":"c","method":"session/cancel","params":{"sessionId":"nope"}}`},
	}
	r := rawConnect(t, func(c *acp.Config) { c.Logger = slog.New(slog.NewTextHandler(slowWriter{}, nil)) })
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	r.next()
	const n = 3000
	for i, tt := range tests {
		burst := strings.Repeat(tt.line+"\n", n)
		id := 100 + i
		burst += fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":1}}`, id)
		written := make(chan error, 1)
		go func() { _, err := io.WriteString(r.w, burst+"\n"); written <- err }()
		answered, cancels := false, 0
		for !answered || (strings.Contains(tt.line, `"id"`) && cancels < n) {
			m := r.next()
			if m["id"] == "c" {
				cancels++ // the answers to the cancel requests
				continue
			}
			if m["id"] != float64(id) || m["result"] == nil {
				t.Fatalf("%s: after the burst: %v, want the initialize result", tt.name, m)
			}
			answered = true
		}
		if err := <-written; err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
	}
}
