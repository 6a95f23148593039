package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"
)

// acpReview runs "planhost acp" with args and env over pipes, opens a
// session in ws, switches it to plan mode and prompts it, and returns the
// plan review's session/request_permission once it arrives. answer
// selects an option of it by ID, waits for the prompt's response (its
// stop reason must be end_turn), closes stdin and waits for the process.
type acpReview struct {
	t       *testing.T
	in      *io.PipeWriter
	lines   chan map[string]any
	code    chan int
	errOut  *syncBuffer
	Request map[string]any
}

func startACPReview(t *testing.T, args []string, env map[string]string, ws string) *acpReview {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	a := &acpReview{t: t, in: inW, lines: make(chan map[string]any, 64), code: make(chan int, 1), errOut: &syncBuffer{}}
	p := newProgram(inR, outW, a.errOut)
	p.getenv = func(k string) string { return env[k] }
	go func() {
		a.code <- p.main(args)
		outW.Close()
	}()
	go func() {
		defer close(a.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				a.lines <- m
			}
		}
	}()
	a.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	a.until(response(1))
	a.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + ws + `","mcpServers":[]}}`)
	res, _ := a.until(response(2))["result"].(map[string]any)
	id, _ := res["sessionId"].(string)
	a.send(`{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":"` + id + `","modeId":"plan"}}`)
	if m := a.until(response(3)); m["error"] != nil {
		t.Fatalf("set_mode: %v", m)
	}
	a.send(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"` + id + `","prompt":[{"type":"text","text":"plan it"}]}}`)
	a.Request = a.until(func(m map[string]any) bool { return m["method"] == "session/request_permission" })
	return a
}

// Options are the review's permission options.
func (a *acpReview) Options() []map[string]any {
	params, _ := a.Request["params"].(map[string]any)
	options, _ := params["options"].([]any)
	var out []map[string]any
	for _, o := range options {
		if o, ok := o.(map[string]any); ok {
			out = append(out, o)
		}
	}
	return out
}

func (a *acpReview) answer(optionID string) {
	a.t.Helper()
	reqID, _ := json.Marshal(a.Request["id"])
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":%q}}}`, reqID, optionID))
	if r, _ := a.until(response(4))["result"].(map[string]any); r["stopReason"] != "end_turn" {
		a.t.Errorf("prompt result %v", r)
	}
	a.in.Close()
	select {
	case <-a.code:
	case <-time.After(20 * time.Second):
		a.t.Fatal("planhost acp did not exit")
	}
	for range a.lines {
	}
}

func (a *acpReview) send(s string) {
	a.t.Helper()
	if _, err := io.WriteString(a.in, s+"\n"); err != nil {
		a.t.Fatal(err)
	}
}

// until reads messages until one satisfies ok.
func (a *acpReview) until(ok func(map[string]any) bool) map[string]any {
	a.t.Helper()
	for {
		select {
		case m, open := <-a.lines:
			if !open {
				a.t.Fatalf("stdout closed; stderr:\n%s", a.errOut.String())
			}
			if ok(m) {
				return m
			}
		case <-time.After(20 * time.Second):
			a.t.Fatalf("timed out; stderr:\n%s", a.errOut.String())
		}
	}
}

// response matches the response to request id.
func response(id float64) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["id"] == id && m["method"] == nil }
}
