// Package fakeopenai is a local chat-completions endpoint for tests: it
// answers from a queue of replies, streams them as server-sent events when
// asked, and can behave like DeepSeek's thinking mode (reasoning_content in
// every answer, and a request refused when an earlier assistant message
// with tool calls lacks it), like a plain OpenAI endpoint, or like an
// endpoint that is slow, rate limited, cut off or refuses streaming. In
// strict mode it also enforces the tool-call rules as OpenAI does.
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"
)

// Flavour is how the endpoint treats reasoning.
type Flavour int

const (
	// OpenAI sends no reasoning and refuses a request that carries
	// reasoning_content, as a strict endpoint would.
	OpenAI Flavour = iota
	// DeepSeek sends reasoning_content and refuses a request whose
	// assistant message with tool calls lacks it (HTTP 400).
	DeepSeek
)

// TextMissingReasoning is DeepSeek's complaint (in substance) about a
// request without the reasoning it requires.
const TextMissingReasoning = "Missing `reasoning_content` field in the assistant message"

// OpenAI's complaints (in substance) about tool calls and tool messages
// that are not paired, which strict mode answers with 400.
const (
	// TextUnansweredCalls is followed by the IDs of the calls without a
	// tool message.
	TextUnansweredCalls = "An assistant message with 'tool_calls' must be followed by tool messages " +
		"responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
	// TextOrphanToolMessage is the complaint about a tool message that
	// answers no call of the assistant message before it.
	TextOrphanToolMessage = "Invalid parameter: messages with role 'tool' must be a response to a preceeding " +
		"message with 'tool_calls'."
)

// Call is a tool call of a reply.
type Call struct {
	ID, Name, Arguments string
}

// Reply is one queued answer.
type Reply struct {
	Reasoning string
	Text      string
	Calls     []Call
	// Status, when not 0 or 200, is sent instead of an answer (with Header
	// and an error body) and the reply is consumed.
	Status int
	Header map[string]string
	// CutAfter, when positive, streams that many events and then breaks
	// the connection.
	CutAfter int
	// Gate, when set, is waited on after the first event of a stream.
	Gate <-chan struct{}
}

// Options configure the server.
type Options struct {
	Flavour Flavour
	// RefuseStream answers a streaming request with 400.
	RefuseStream bool
	// IgnoreStream answers a streaming request with one JSON body.
	IgnoreStream bool
	// Delay is waited before each streamed event.
	Delay time.Duration
	// APIKey, when set, is required as the bearer token.
	APIKey string
	// Strict refuses, with 400, a request in which an assistant message's
	// tool call has no tool message answering it before the next other
	// message, or a tool message answers no such call.
	Strict bool
}

// Request is a request the server received.
type Request struct {
	Raw    string
	Stream bool
	Body   map[string]any
}

// Server is the fake endpoint.
type Server struct {
	*httptest.Server
	opts    Options
	mu      sync.Mutex
	replies []Reply
	got     []Request
}

// New starts a server answering with replies in order; Close it when done.
func New(opts Options, replies ...Reply) *Server {
	s := &Server{opts: opts, replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the API root to configure ("…/v1").
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.got...)
}

// SetReplies replaces the queue of replies.
func (s *Server) SetReplies(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append([]Reply(nil), replies...)
}

// Close stops the server and closes its client's idle connections.
func (s *Server) Close() {
	s.Server.CloseClientConnections()
	s.Server.Close()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	switch {
	case json.Unmarshal(raw, &body) != nil || r.URL.Path != "/v1/chat/completions":
		fail(w, http.StatusBadRequest, "unexpected request")
		return
	case s.opts.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.APIKey:
		fail(w, http.StatusUnauthorized, "bad key")
		return
	}
	stream, _ := body["stream"].(bool)
	refusal := s.check(body, stream)
	s.mu.Lock()
	s.got = append(s.got, Request{Raw: string(raw), Stream: stream, Body: body})
	queued := len(s.replies) > 0
	var rep Reply
	if refusal == "" && queued {
		rep, s.replies = s.replies[0], s.replies[1:]
	}
	s.mu.Unlock()
	switch {
	case refusal != "":
		fail(w, http.StatusBadRequest, refusal)
	case !queued:
		fail(w, http.StatusTeapot, "no reply queued")
	case rep.Status != 0 && rep.Status != http.StatusOK:
		for k, v := range rep.Header {
			w.Header().Set(k, v)
		}
		fail(w, rep.Status, http.StatusText(rep.Status))
	case stream && !s.opts.IgnoreStream:
		s.stream(w, r, rep)
	default:
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": "fake", "object": "chat.completion", "created": 1, "model": "fake",
			"choices": []any{map[string]any{"index": 0, "finish_reason": finish(rep), "message": s.message(rep)}}})
		w.Write(b)
	}
}

// check returns why the request is refused, or "".
func (s *Server) check(body map[string]any, stream bool) string {
	if stream && s.opts.RefuseStream {
		return "stream is not supported"
	}
	msgs, _ := body["messages"].([]any)
	if s.opts.Strict {
		if msg := checkPairs(msgs); msg != "" {
			return msg
		}
	}
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		if msg["role"] != "assistant" {
			continue
		}
		r, has := msg["reasoning_content"].(string)
		switch s.opts.Flavour {
		case OpenAI:
			if has {
				return "unknown field reasoning_content"
			}
		case DeepSeek:
			if calls, _ := msg["tool_calls"].([]any); len(calls) > 0 && r == "" {
				return TextMissingReasoning
			}
		}
	}
	return ""
}

// checkPairs returns why OpenAI refuses msgs for unpaired tool calls or
// tool messages, or "".
func checkPairs(msgs []any) string {
	var open []string
	for _, m := range msgs {
		msg, _ := m.(map[string]any)
		if msg["role"] == "tool" {
			id, _ := msg["tool_call_id"].(string)
			i := slices.Index(open, id)
			if i < 0 {
				return TextOrphanToolMessage
			}
			open = slices.Delete(open, i, i+1)
			continue
		}
		if len(open) > 0 {
			return TextUnansweredCalls + strings.Join(open, ", ")
		}
		calls, _ := msg["tool_calls"].([]any)
		for _, c := range calls {
			call, _ := c.(map[string]any)
			id, _ := call["id"].(string)
			open = append(open, id)
		}
	}
	if len(open) > 0 {
		return TextUnansweredCalls + strings.Join(open, ", ")
	}
	return ""
}

func (s *Server) message(rep Reply) map[string]any {
	m := map[string]any{"role": "assistant", "content": rep.Text}
	if s.opts.Flavour == DeepSeek {
		m["reasoning_content"] = rep.Reasoning
	}
	var calls []any
	for _, c := range rep.Calls {
		calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
	}
	if len(calls) > 0 {
		m["tool_calls"] = calls
	}
	return m
}

// stream sends rep as events: reasoning and text in pieces of a few
// characters, each tool call's name first and its arguments in two halves.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, rep Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	var deltas []map[string]any
	deltas = append(deltas, map[string]any{"role": "assistant", "content": ""})
	if s.opts.Flavour == DeepSeek {
		for _, p := range pieces(rep.Reasoning) {
			deltas = append(deltas, map[string]any{"reasoning_content": p, "content": nil})
		}
	}
	for _, p := range pieces(rep.Text) {
		deltas = append(deltas, map[string]any{"content": p})
	}
	for i, c := range rep.Calls {
		half := len(c.Arguments) / 2
		deltas = append(deltas,
			map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments[:half]}}}},
			map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": c.Arguments[half:]}}}},
		)
	}
	choices := make([]map[string]any, 0, len(deltas)+1)
	for _, d := range deltas {
		choices = append(choices, map[string]any{"index": 0, "delta": d})
	}
	choices = append(choices, map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish(rep)})
	for i, c := range choices {
		if rep.CutAfter > 0 && i == rep.CutAfter && i < len(deltas) {
			panic(http.ErrAbortHandler) // the connection breaks mid-answer
		}
		if !wait(r, time.After(s.opts.Delay)) {
			return
		}
		b, _ := json.Marshal(map[string]any{"id": "fake", "object": "chat.completion.chunk", "created": 1, "model": "fake", "choices": []any{c}})
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return
		}
		_ = http.NewResponseController(w).Flush()
		if i == 0 && rep.Gate != nil && !wait(r, rep.Gate) {
			return
		}
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// wait waits for ch, and reports false when the request ends first.
func wait[T any](r *http.Request, ch <-chan T) bool {
	select {
	case <-ch:
		return true
	case <-r.Context().Done():
		return false
	}
}

func finish(rep Reply) string {
	if len(rep.Calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// pieces cuts s into pieces of up to four runes.
func pieces(s string) []string {
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		n := min(4, len(r))
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	return out
}

func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
	w.Write(b)
}
