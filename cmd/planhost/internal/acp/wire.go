package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// MaxMessageSize is the largest incoming message, in bytes, the agent
// reads (8 MiB). A longer line is answered with a parse error and skipped;
// the connection stays up.
const MaxMessageSize = 8 << 20

// JSON-RPC error codes of the wire check.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// wireError is the error response to a message the check refused.
type wireError struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Error   *sdk.RequestError `json:"error"`
}

// wireKeys are the members of a JSON-RPC 2.0 message, matched exactly
// (encoding/json would match them case-insensitively).
var wireKeys = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// passed is what the wire check read of a message it passed.
type passed struct {
	// method is the method of a request or notification ("" for a
	// response).
	method string
	// notification is true for a message with a method and no id.
	notification bool
	// params are the message's params (nil when it has none).
	params json.RawMessage
}

// checkMessage checks one incoming line before the connection decodes it.
// For a JSON-RPC 2.0 request, notification or response it returns msg: the
// message re-encoded with exactly its JSON-RPC members, so that the
// connection reads what was checked, and what it read of it. Otherwise it
// returns the error response to send (id null when the line's id cannot be
// read), or neither for a malformed response, which JSON-RPC never answers.
//
// A passed message is never longer than line (it is compacted, never
// escaped further), so it stays within the connection's line limit.
func checkMessage(line []byte) (msg, resp []byte, seen passed) {
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		return nil, errorResponse(nil, codeParseError, "Parse error", fmt.Sprintf(wireNotJSON, err)), seen
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, errorResponse(nil, codeInvalidRequest, "Invalid request", wireNotObject), seen
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &all); err != nil {
		return nil, errorResponse(nil, codeInvalidRequest, "Invalid request", err.Error()), seen
	}
	m := make(map[string]json.RawMessage, len(wireKeys))
	for _, k := range wireKeys {
		if v, ok := all[k]; ok {
			m[k] = v
		}
	}
	id, hasID := m["id"]
	if hasID && !validID(id) {
		return nil, errorResponse(nil, codeInvalidRequest, "Invalid request", wireBadID), seen
	}
	if !hasID {
		id = nil
	}
	var version string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return nil, errorResponse(id, codeInvalidRequest, "Invalid request", wireBadVersion), seen
	}
	rawMethod, hasMethod := m["method"]
	if !hasMethod {
		_, hasResult := m["result"]
		_, hasError := m["error"]
		switch {
		case id == nil || isNull(id):
			// Neither a request nor a response: answer as JSON-RPC
			// answers an invalid request.
			return nil, errorResponse(nil, codeInvalidRequest, "Invalid request", wireNoMethod), seen
		case !hasResult && !hasError:
			return nil, errorResponse(id, codeInvalidRequest, "Invalid request", wireNoMethod), seen
		case hasResult && hasError:
			return nil, nil, seen // a malformed response: never answered
		}
		return encode(m), nil, seen
	}
	var method string
	if json.Unmarshal(rawMethod, &method) != nil || method == "" {
		return nil, errorResponse(id, codeInvalidRequest, "Invalid request", wireBadMethod), seen
	}
	if p, ok := m["params"]; ok && !isNull(p) && p[0] != '{' && p[0] != '[' {
		return nil, errorResponse(id, codeInvalidRequest, "Invalid request", wireBadParams), seen
	}
	delete(m, "result")
	delete(m, "error")
	return encode(m), nil, passed{method: method, notification: id == nil || isNull(id), params: m["params"]}
}

// encode writes a checked message as one line, its values compacted but
// otherwise as they came: HTML escaping would write each '<', '>' and '&'
// as six bytes and could carry a message past the connection's line
// limit.
func encode(m map[string]json.RawMessage) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil { // cannot happen: every value is valid JSON
		return nil
	}
	return b.Bytes()
}

// validID reports whether raw is a JSON-RPC id: a string, a number or null.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"', c == 'n', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

func errorResponse(id json.RawMessage, code int, message, detail string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(wireError{
		JSONRPC: "2.0",
		ID:      id,
		Error:   &sdk.RequestError{Code: code, Message: message, Data: map[string]any{"error": detail}},
	})
	if err != nil { // cannot happen: every field marshals
		return nil
	}
	return append(b, '\n')
}

// output is the connection's writer: every message is one Write of one
// line, under one lock, so that the SDK's messages and the wire check's
// answers never interleave. It also holds back the updates of a new
// session until its session/new response is on the wire.
type output struct {
	mu    sync.Mutex
	w     io.Writer
	gates map[string]chan struct{} // by session ID
}

func newOutput(w io.Writer) *output { return &output{w: w, gates: map[string]chan struct{}{}} }

// gate returns a channel closed once a response carrying sessionId id has
// been written.
func (o *output) gate(id string) <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := make(chan struct{})
	o.gates[id] = c
	return c
}

// Write writes one message line.
func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.w.Write(p)
	if len(o.gates) > 0 {
		var r struct {
			Result struct {
				SessionID string `json:"sessionId"`
			} `json:"result"`
		}
		if json.Unmarshal(p, &r) == nil {
			if c, ok := o.gates[r.Result.SessionID]; ok {
				close(c)
				delete(o.gates, r.Result.SessionID)
			}
		}
	}
	return n, err
}

// openAll releases every gate (the connection is closing).
func (o *output) openAll() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for id, c := range o.gates {
		close(c)
		delete(o.gates, id)
	}
}

// maxPendingCancels bounds the session/cancel messages the filter has
// passed on that the agent has not taken yet. The SDK queues incoming
// notifications (1,024 of them) and closes the connection when its queue
// is full; with this bound, and every other notification dropped before
// it, the queue never fills.
const maxPendingCancels = 256

// forwarded are the notifications the filter passes on, besides
// session/cancel: the SDK handles "$/cancel_request" as it reads it, never
// queued. Every other notification has no handler in the agent and is
// dropped, as the SDK would drop it after queueing it.
var forwarded = []string{"$/cancel_request"}

// cancelGate holds back session/cancel messages while maxPendingCancels of
// them wait for the agent: the filter takes a slot for each it passes on
// (only those that reach [Agent.Cancel]), Cancel gives one back.
type cancelGate struct {
	slots chan struct{}
	done  <-chan struct{} // the connection ended: nothing is taken any more
}

func newCancelGate(done <-chan struct{}) *cancelGate {
	return &cancelGate{slots: make(chan struct{}, maxPendingCancels), done: done}
}

// take waits for a slot; false when the connection ended first.
func (g *cancelGate) take() bool {
	select {
	case g.slots <- struct{}{}:
		return true
	case <-g.done:
		return false
	}
}

// give returns the slot of a session/cancel the agent took.
func (g *cancelGate) give() {
	select {
	case <-g.slots:
	default:
	}
}

// admit decides whether a checked message goes on to the connection: a
// notification the agent has no handler for is dropped; a session/cancel
// that reaches [Agent.Cancel] first takes a slot of g. It reports false
// for a message to drop.
func (g *cancelGate) admit(p passed) bool {
	switch {
	case p.method == sdk.AgentMethodSessionCancel:
		var c sdk.CancelNotification
		if json.Unmarshal(p.params, &c) != nil || c.Validate() != nil {
			// The SDK refuses these params before Cancel: it answers a
			// request at once, and would queue a notification only to
			// drop it.
			return !p.notification
		}
		return g.take()
	case p.notification:
		return slices.Contains(forwarded, p.method)
	}
	return true
}

// filter copies the lines of in that pass checkMessage and g to w,
// answers the others on out, and closes w when in ends.
func filter(in io.Reader, w *io.PipeWriter, out io.Writer, log *slog.Logger, g *cancelGate) {
	r := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if len(line)+len(chunk) > MaxMessageSize {
				out.Write(errorResponse(nil, codeParseError, "Parse error", fmt.Sprintf(wireTooLarge, MaxMessageSize)))
				log.Warn("acp: dropped an oversized message", "limit", MaxMessageSize)
				if err := skipLine(r); err != nil {
					w.CloseWithError(err)
					return
				}
				line = line[:0]
				continue
			}
			line = append(line, chunk...)
			continue
		case err != nil && len(chunk) == 0 && len(line) == 0:
			if errors.Is(err, io.EOF) {
				err = nil
			}
			w.CloseWithError(err)
			return
		}
		line = append(line, chunk...)
		if len(bytes.TrimSpace(line)) > 0 {
			if len(line) > MaxMessageSize {
				out.Write(errorResponse(nil, codeParseError, "Parse error", fmt.Sprintf(wireTooLarge, MaxMessageSize)))
			} else if msg, resp, p := checkMessage(line); msg == nil {
				if resp != nil {
					out.Write(resp)
				}
				log.Warn("acp: refused an incoming message", "answer", string(bytes.TrimSpace(resp)))
			} else if !g.admit(p) {
				log.Debug("acp: dropped a notification the agent does not handle", "method", p.method)
			} else if _, werr := w.Write(msg); werr != nil {
				return
			}
		}
		line = line[:0]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			w.CloseWithError(err)
			return
		}
	}
}

// skipLine discards the rest of the current line.
func skipLine(r *bufio.Reader) error {
	for {
		_, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return err
	}
}
