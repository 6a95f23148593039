package acp

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"
)

// maxWireID bounds the ids of the agent's requests to the client: integers
// a JavaScript client keeps exactly (below 2^53).
const maxWireID = 1<<53 - 1

// requestIDs binds the client's answers to the requests the agent sent.
// The connection numbers its requests to the client 1, 2, 3…, so a client
// could answer a permission request before it was sent (by guessing its
// id), and such an answer, arriving just as the request goes out, would be
// taken as the user's. On the wire each request gets a fresh random id
// instead; only a response carrying the id of a request that was sent and
// not yet answered reaches the connection (with the connection's own id),
// once. Every other response (a guess, an answer sent before the request,
// a second answer, one to a withdrawn request) is dropped and logged.
type requestIDs struct {
	log *slog.Logger
	mu  sync.Mutex
	// wire maps a request's wire id to its id on the connection.
	wire map[int64]json.RawMessage
	// conn maps the connection's id (canonical text) to the wire id.
	conn map[string]int64
}

func newRequestIDs(log *slog.Logger) *requestIDs {
	return &requestIDs{log: log, wire: map[int64]json.RawMessage{}, conn: map[string]int64{}}
}

// message is a JSON-RPC message as the agent's connection writes it and as
// the wire check passes it on.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// cancelParams are the params of $/cancel_request.
type cancelParams struct {
	RequestID json.RawMessage `json:"requestId"`
}

const methodCancelRequest = "$/cancel_request"

// requests returns the writer the connection writes to: each request to
// the client leaves with a fresh wire id (and a $/cancel_request names
// it), everything else is written as it is, one Write per message.
func (r *requestIDs) requests(w io.Writer) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		line, err := r.outgoing(p)
		if err != nil {
			return 0, err
		}
		if _, err := w.Write(line); err != nil {
			return 0, err
		}
		return len(p), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// outgoing gives a request its wire id.
func (r *requestIDs) outgoing(p []byte) ([]byte, error) {
	var m message
	if json.Unmarshal(p, &m) != nil || m.Method == "" {
		return p, nil // a response or not ours to change
	}
	if m.ID == nil {
		if m.Method != methodCancelRequest {
			return p, nil
		}
		var c cancelParams
		if json.Unmarshal(m.Params, &c) != nil {
			return p, nil
		}
		r.mu.Lock()
		id, ok := r.conn[string(c.RequestID)]
		if ok {
			delete(r.conn, string(c.RequestID))
			delete(r.wire, id)
		}
		r.mu.Unlock()
		if !ok {
			return p, nil
		}
		params, err := json.Marshal(cancelParams{RequestID: json.RawMessage(strconv.FormatInt(id, 10))})
		if err != nil {
			return nil, err
		}
		m.Params = params
		return encodeMessage(m)
	}
	id, err := r.newID(m.ID)
	if err != nil {
		return nil, err
	}
	m.ID = json.RawMessage(strconv.FormatInt(id, 10))
	return encodeMessage(m)
}

// newID picks an unused random wire id for the connection's id.
func (r *requestIDs) newID(connID json.RawMessage) (int64, error) {
	var b [8]byte
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if _, err := rand.Read(b[:]); err != nil {
			return 0, err
		}
		id := int64(binary.BigEndian.Uint64(b[:]) & maxWireID)
		if _, taken := r.wire[id]; taken || id == 0 {
			continue
		}
		r.wire[id] = bytes.Clone(connID)
		r.conn[string(connID)] = id
		return id, nil
	}
}

// responses returns what the connection reads: the lines of in, with each
// response to a request the agent sent carrying the connection's id again,
// and every other response dropped. The returned reader's Close ends the
// relay (and then the writer of in).
func (r *requestIDs) responses(in *io.PipeReader) *io.PipeReader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReader(in)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				if out := r.incoming(line); out != nil {
					if _, werr := pw.Write(out); werr != nil {
						in.CloseWithError(werr) // the writer of in stops too
						return
					}
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// incoming maps a response's wire id back, or drops the response (nil).
func (r *requestIDs) incoming(line []byte) []byte {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method != "" || m.ID == nil {
		return line // a request or notification (the wire check passed it)
	}
	id, ok := wireID(m.ID)
	r.mu.Lock()
	connID, sent := r.wire[id]
	if ok && sent {
		delete(r.wire, id)
		delete(r.conn, string(connID))
	}
	r.mu.Unlock()
	if !ok || !sent {
		r.log.Warn("acp: dropped a response to no open request of the agent", "id", string(m.ID))
		return nil
	}
	m.ID = connID
	out, err := encodeMessage(m)
	if err != nil { // cannot happen: every member is valid JSON
		return nil
	}
	return out
}

// wireID reads a wire id: an integer, in any JSON spelling of it.
func wireID(raw json.RawMessage) (int64, bool) {
	s := string(bytes.TrimSpace(raw))
	if id, err := strconv.ParseInt(s, 10, 64); err == nil {
		return id, id > 0 && id <= maxWireID
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int64(f)) || f <= 0 || f > maxWireID {
		return 0, false
	}
	return int64(f), true
}

// encodeMessage writes m as one line, without HTML escaping.
func encodeMessage(m message) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
