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

// wireMessage is the shape CheckMessage reads: every field raw, so that a
// present but wrongly typed field can be told from a missing one.
type wireMessage struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// wireError is the error response to a message the check refused.
type wireError struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Error   *sdk.RequestError `json:"error"`
}

// CheckMessage checks one incoming line before the connection decodes it.
// It returns nil when the line is a JSON-RPC 2.0 request, notification or
// response. Otherwise it returns the error response to send (id null when
// the line's id cannot be read), or nil as well for a malformed response,
// which JSON-RPC never answers; drop reports whether the line must be
// dropped.
func CheckMessage(line []byte) (resp []byte, drop bool) {
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		return errorResponse(nil, codeParseError, "Parse error", fmt.Sprintf(wireNotJSON, err)), true
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return errorResponse(nil, codeInvalidRequest, "Invalid request", wireNotObject), true
	}
	var m wireMessage
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return errorResponse(nil, codeInvalidRequest, "Invalid request", err.Error()), true
	}
	id := m.ID
	if id != nil && !validID(id) {
		return errorResponse(nil, codeInvalidRequest, "Invalid request", wireBadID), true
	}
	var version string
	if json.Unmarshal(m.JSONRPC, &version) != nil || version != "2.0" {
		return errorResponse(id, codeInvalidRequest, "Invalid request", wireBadVersion), true
	}
	if m.Method == nil {
		results := 0
		if m.Result != nil {
			results++
		}
		if m.Error != nil {
			results++
		}
		if id == nil || isNull(id) || results != 1 {
			if id == nil || isNull(id) {
				// Neither a request nor a response: answer as JSON-RPC
				// answers an invalid request.
				return errorResponse(nil, codeInvalidRequest, "Invalid request", wireNoMethod), true
			}
			return nil, true
		}
		return nil, false
	}
	var method string
	if json.Unmarshal(m.Method, &method) != nil || method == "" {
		return errorResponse(id, codeInvalidRequest, "Invalid request", wireBadMethod), true
	}
	if p := bytes.TrimSpace(m.Params); p != nil && !isNull(p) && p[0] != '{' && p[0] != '[' {
		return errorResponse(id, codeInvalidRequest, "Invalid request", wireBadParams), true
	}
	return nil, false
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
			} else if resp, drop := CheckMessage(line); drop {
				if resp != nil {
					out.Write(resp)
				}
				log.Warn("acp: refused an incoming message", "answer", string(bytes.TrimSpace(resp)))
			} else {
				if line[len(line)-1] != '\n' {
					line = append(line, '\n')
				}
				if _, werr := w.Write(line); werr != nil {
					return
				}
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
