package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
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

// CheckMessage checks one incoming line before the connection decodes it.
// For a JSON-RPC 2.0 request, notification or response it returns msg: the
// message re-encoded with exactly its JSON-RPC members, so that the
// connection reads what was checked. Otherwise it returns the error
// response to send (id null when the line's id cannot be read), or neither
// for a malformed response, which JSON-RPC never answers.
func CheckMessage(line []byte) (msg, resp []byte) {
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		return nil, errorResponse(nil, codeParseError, "Parse error", fmt.Sprintf(wireNotJSON, err))
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, errorResponse(nil, codeInvalidRequest, "Invalid request", wireNotObject)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &all); err != nil {
		return nil, errorResponse(nil, codeInvalidRequest, "Invalid request", err.Error())
	}
	m := make(map[string]json.RawMessage, len(wireKeys))
	for _, k := range wireKeys {
		if v, ok := all[k]; ok {
			m[k] = v
		}
	}
	id, hasID := m["id"]
	if hasID && !validID(id) {
		return nil, errorResponse(nil, codeInvalidRequest, "Invalid request", wireBadID)
	}
	if !hasID {
		id = nil
	}
	var version string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return nil, errorResponse(id, codeInvalidRequest, "Invalid request", wireBadVersion)
	}
	rawMethod, hasMethod := m["method"]
	if !hasMethod {
		_, hasResult := m["result"]
		_, hasError := m["error"]
		switch {
		case id == nil || isNull(id):
			// Neither a request nor a response: answer as JSON-RPC
			// answers an invalid request.
			return nil, errorResponse(nil, codeInvalidRequest, "Invalid request", wireNoMethod)
		case !hasResult && !hasError:
			return nil, errorResponse(id, codeInvalidRequest, "Invalid request", wireNoMethod)
		case hasResult && hasError:
			return nil, nil // a malformed response: never answered
		}
		return encode(m), nil
	}
	var method string
	if json.Unmarshal(rawMethod, &method) != nil || method == "" {
		return nil, errorResponse(id, codeInvalidRequest, "Invalid request", wireBadMethod)
	}
	if p, ok := m["params"]; ok && !isNull(p) && p[0] != '{' && p[0] != '[' {
		return nil, errorResponse(id, codeInvalidRequest, "Invalid request", wireBadParams)
	}
	delete(m, "result")
	delete(m, "error")
	return encode(m), nil
}

// encode writes a checked message as one line.
func encode(m map[string]json.RawMessage) []byte {
	b, err := json.Marshal(m)
	if err != nil { // cannot happen: every value is valid JSON
		return nil
	}
	return append(b, '\n')
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

// filter copies the lines of in that pass [CheckMessage] to w, answers the
// others on out, and closes w when in ends.
func filter(in io.Reader, w *io.PipeWriter, out io.Writer, log *slog.Logger) {
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
			} else if msg, resp := CheckMessage(line); msg == nil {
				if resp != nil {
					out.Write(resp)
				}
				log.Warn("acp: refused an incoming message", "answer", string(bytes.TrimSpace(resp)))
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
