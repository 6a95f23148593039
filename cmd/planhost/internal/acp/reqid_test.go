package acp

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
)

// TestRequestIDsPassOnlyAnswersToSentRequests: a request leaves with a
// random id; the response with that id comes back with the connection's
// id, once; guesses, repeats and answers to a cancelled request are
// dropped; $/cancel_request names the wire id.
func TestRequestIDsPassOnlyAnswersToSentRequests(t *testing.T) {
	r := newRequestIDs(slog.New(slog.DiscardHandler))
	send := func(line string) message {
		t.Helper()
		out, err := r.outgoing([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		var m message
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		return m
	}
	req := send(`{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"a":"<b>"}}`)
	if string(req.ID) == "1" || string(req.Params) != `{"a":"<b>"}` {
		t.Fatalf("request = %+v, want a new id and the params as they were", req)
	}
	answer := func(id string) []byte {
		return r.incoming([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"x":1}}` + "\n"))
	}
	tests := []struct {
		name, id string
		want     string // the id the connection gets; "" for dropped
	}{
		{"a guess of the connection's id", "1", ""},
		{"a string id", `"` + string(req.ID) + `"`, ""},
		{"the request's id", string(req.ID), "1"},
		{"the same answer again", string(req.ID), ""},
	}
	for _, tt := range tests {
		out := answer(tt.id)
		if tt.want == "" {
			if out != nil {
				t.Errorf("%s: passed on %q", tt.name, out)
			}
			continue
		}
		var m message
		if err := json.Unmarshal(out, &m); err != nil || string(m.ID) != tt.want || string(m.Result) != `{"x":1}` {
			t.Errorf("%s: passed on %q, want id %s", tt.name, out, tt.want)
		}
	}
	// A cancelled request: the cancel names the wire id, a late answer is
	// dropped.
	req2 := send(`{"jsonrpc":"2.0","id":2,"method":"session/request_permission","params":{}}`)
	cancel := send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}`)
	if !bytes.Contains(cancel.Params, req2.ID) {
		t.Errorf("cancel params = %s, want the wire id %s", cancel.Params, req2.ID)
	}
	if out := answer(string(req2.ID)); out != nil {
		t.Errorf("an answer to a cancelled request passed: %q", out)
	}
	// Requests and notifications from the client pass as they are.
	in := []byte(`{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{}}` + "\n")
	if out := r.incoming(in); !bytes.Equal(out, in) {
		t.Errorf("a client request became %q", out)
	}
}

// FuzzIncoming feeds arbitrary lines to the response check: it never
// panics, and passes on a response only for a request that was sent.
func FuzzIncoming(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1e3,"error":{"code":1}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","result":null}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"m","params":[]}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r := newRequestIDs(slog.New(slog.DiscardHandler))
		out := r.incoming(line)
		var m message
		if json.Unmarshal(line, &m) == nil && m.Method == "" && m.ID != nil && out != nil {
			t.Fatalf("a response to no request passed: %q", out)
		}
	})
}
