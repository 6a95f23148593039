package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"
	"time"
)

// acpPipes is "planhost acp" run in-process over pipes, with Ctrl-C
// delivered through sigs.
type acpPipes struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan string
	code   chan int
	errOut *syncBuffer
	sigs   chan os.Signal
}

// startACP runs "planhost acp" with args in the environment env.
func startACP(t *testing.T, env map[string]string, args ...string) *acpPipes {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	a := &acpPipes{t: t, in: inW, lines: make(chan string, 64), code: make(chan int, 1), errOut: &syncBuffer{}, sigs: make(chan os.Signal, 1)}
	p := newProgram(inR, outW, a.errOut)
	p.getenv = func(k string) string { return env[k] }
	p.notifyInterrupt = func() (<-chan os.Signal, func()) { return a.sigs, func() {} }
	go func() {
		a.code <- p.main(append([]string{"acp"}, args...))
		outW.Close()
	}()
	go func() {
		defer close(a.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			a.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { inW.Close() })
	return a
}

// send writes one line to the program's stdin.
func (a *acpPipes) send(s string) {
	a.t.Helper()
	if _, err := io.WriteString(a.in, s+"\n"); err != nil {
		a.t.Fatal(err)
	}
}

// request sends the request id with method and params (JSON).
func (a *acpPipes) request(id int, method, params string) {
	a.t.Helper()
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
}

// call sends a request and returns its response.
func (a *acpPipes) call(id int, method, params string) map[string]any {
	a.t.Helper()
	a.request(id, method, params)
	return a.until(response(float64(id)))
}

// newSession opens a session in cwd with request id and returns its ID.
func (a *acpPipes) newSession(id int, cwd string) string {
	a.t.Helper()
	m := a.call(id, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, cwd))
	res, _ := m["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	if sid == "" {
		a.t.Fatalf("session/new in %s: %v", cwd, m)
	}
	return sid
}

// next returns the next line on stdout, which must be a JSON-RPC message.
func (a *acpPipes) next() map[string]any {
	a.t.Helper()
	select {
	case l, ok := <-a.lines:
		if !ok {
			a.t.Fatalf("stdout closed; stderr:\n%s", a.errOut.String())
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["jsonrpc"] != "2.0" {
			a.t.Fatalf("stdout line %q is not a JSON-RPC message", l)
		}
		return m
	case <-time.After(20 * time.Second):
		a.t.Fatalf("no message on stdout; stderr:\n%s", a.errOut.String())
	}
	return nil
}

// until reads messages until one satisfies ok.
func (a *acpPipes) until(ok func(map[string]any) bool) map[string]any {
	a.t.Helper()
	for {
		if m := a.next(); ok(m) {
			return m
		}
	}
}

// exit waits for the program to end, which what should make it do, and
// returns its exit code.
func (a *acpPipes) exit(what string) int {
	a.t.Helper()
	select {
	case c := <-a.code:
		return c
	case <-time.After(20 * time.Second):
		a.t.Fatalf("planhost acp did not exit %s", what)
	}
	return 0
}

// rest returns what the program wrote after the last message read, once
// it ended.
func (a *acpPipes) rest() []string {
	var out []string
	for l := range a.lines {
		out = append(out, l)
	}
	return out
}

// response matches the response to request id.
func response(id float64) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["id"] == id && m["method"] == nil }
}

// acpReview is "planhost acp" with a session in ws switched to plan mode
// and prompted (request 4), and the plan review's
// session/request_permission that came of it.
type acpReview struct {
	*acpPipes
	Request map[string]any
}

// startACPReview runs "planhost acp" with args and env until the plan
// review is asked.
func startACPReview(t *testing.T, env map[string]string, ws string, args ...string) *acpReview {
	t.Helper()
	a := startACP(t, env, args...)
	a.call(1, "initialize", `{"protocolVersion":1}`)
	id := a.newSession(2, ws)
	if m := a.call(3, "session/set_mode", fmt.Sprintf(`{"sessionId":%q,"modeId":"plan"}`, id)); m["error"] != nil {
		t.Fatalf("set_mode: %v", m)
	}
	a.request(4, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":"plan it"}]}`, id))
	return &acpReview{acpPipes: a, Request: a.until(func(m map[string]any) bool { return m["method"] == "session/request_permission" })}
}

// Options are the review's permission options.
func (r *acpReview) Options() []map[string]any {
	params, _ := r.Request["params"].(map[string]any)
	options, _ := params["options"].([]any)
	var out []map[string]any
	for _, o := range options {
		if o, ok := o.(map[string]any); ok {
			out = append(out, o)
		}
	}
	return out
}

// option returns the ID of the review's option named name, which must be
// of kind.
func (r *acpReview) option(name, kind string) string {
	r.t.Helper()
	for _, o := range r.Options() {
		if o["name"] == name {
			if o["kind"] != kind {
				r.t.Errorf("option %q is %v, want %s", name, o["kind"], kind)
			}
			id, _ := o["optionId"].(string)
			return id
		}
	}
	r.t.Fatalf("no option %q in %v", name, r.Options())
	return ""
}

// answer selects the option optionID, waits for the prompt's response (its
// stop reason must be end_turn), closes stdin and waits for the process.
func (r *acpReview) answer(optionID string) {
	r.t.Helper()
	reqID, _ := json.Marshal(r.Request["id"])
	r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":%q}}}`, reqID, optionID))
	if res, _ := r.until(response(4))["result"].(map[string]any); res["stopReason"] != "end_turn" {
		r.t.Errorf("prompt result %v", res)
	}
	r.in.Close()
	r.exit("after stdin closed")
	r.rest()
}
