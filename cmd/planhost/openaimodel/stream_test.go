package openaimodel_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/fakeopenai"
	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

// deltas records what OnDelta received.
type deltas struct {
	mu              sync.Mutex
	text, reasoning strings.Builder
	n               int
	first           chan struct{}
}

func newDeltas() *deltas { return &deltas{first: make(chan struct{})} }

func (d *deltas) add(x openaimodel.Delta) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.text.WriteString(x.Text)
	d.reasoning.WriteString(x.Reasoning)
	if d.n == 0 {
		close(d.first)
	}
	d.n++
}

func (d *deltas) got() (text, reasoning string, n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.text.String(), d.reasoning.String(), d.n
}

func streamModel(t *testing.T, srv *fakeopenai.Server, mutate func(*openaimodel.Config)) *openaimodel.Model {
	t.Helper()
	return newModel(t, openaimodel.Config{BaseURL: srv.BaseURL(), Model: "m", Stream: true, HTTPClient: srv.Client()}, mutate)
}

func startFake(t *testing.T, opts fakeopenai.Options, replies ...fakeopenai.Reply) *fakeopenai.Server {
	srv := fakeopenai.New(opts, replies...)
	t.Cleanup(srv.Close)
	return srv
}

var readCall = fakeopenai.Call{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.go"}`}

// followUp is the request after resp's tool call ran: the transcript with
// the assistant message as refhost builds it from the log.
func followUp(resp refhost.Response) refhost.Request {
	req := simpleRequest()
	req.Messages = append(req.Messages,
		refhost.Message{Role: refhost.RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls, Reasoning: resp.Reasoning},
		refhost.Message{Role: refhost.RoleTool, Text: "package a", ToolCallID: resp.ToolCalls[0].ID},
	)
	return req
}

// TestReasoningSentBackWithToolCalls protects DeepSeek's thinking mode:
// the reasoning of an answer with tool calls is read (streamed and not),
// kept, and sent back on the next request, which the endpoint refuses
// without it; a plain OpenAI endpoint gets no reasoning field at all.
func TestReasoningSentBackWithToolCalls(t *testing.T) {
	for _, tt := range []struct {
		name          string
		flavour       fakeopenai.Flavour
		stream        bool
		wantReasoning string
	}{
		{"deepseek streamed", fakeopenai.DeepSeek, true, "Read a.go first."},
		{"deepseek plain", fakeopenai.DeepSeek, false, "Read a.go first."},
		{"openai streamed", fakeopenai.OpenAI, true, ""},
		{"openai plain", fakeopenai.OpenAI, false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := startFake(t, fakeopenai.Options{Flavour: tt.flavour},
				fakeopenai.Reply{Reasoning: "Read a.go first.", Text: "Looking.", Calls: []fakeopenai.Call{readCall}},
				fakeopenai.Reply{Reasoning: "It is small.", Text: "Done."},
			)
			d := newDeltas()
			m := streamModel(t, srv, func(c *openaimodel.Config) { c.Stream, c.OnDelta = tt.stream, d.add })
			resp, err := m.Generate(context.Background(), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			wantCalls := []host.ToolCall{{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"a.go"}`)}}
			if resp.Reasoning != tt.wantReasoning || resp.Text != "Looking." || !equalCalls(resp.ToolCalls, wantCalls) {
				t.Fatalf("response = %+v", resp)
			}
			if tt.stream {
				if text, reasoning, n := d.got(); text != "Looking." || reasoning != tt.wantReasoning || n < 2 {
					t.Errorf("deltas: text %q reasoning %q in %d pieces", text, reasoning, n)
				}
			}
			resp2, err := m.Generate(context.Background(), followUp(resp))
			if err != nil {
				t.Fatalf("second request: %v", err)
			}
			if resp2.Text != "Done." {
				t.Errorf("second response = %+v", resp2)
			}
			reqs := srv.Requests()
			if got := strings.Contains(reqs[1].Raw, `"reasoning_content":"Read a.go first."`); got != (tt.wantReasoning != "") {
				t.Errorf("second request carries reasoning = %t:\n%s", got, reqs[1].Raw)
			}
			if reqs[0].Stream != tt.stream {
				t.Errorf("first request stream = %t", reqs[0].Stream)
			}
		})
	}
}

// TestDeepSeekRefusesRequestWithoutReasoning shows the fake endpoint
// refuses what planhost used to send, so the test above can fail.
func TestDeepSeekRefusesRequestWithoutReasoning(t *testing.T) {
	srv := startFake(t, fakeopenai.Options{Flavour: fakeopenai.DeepSeek}, fakeopenai.Reply{Text: "Done."})
	m := streamModel(t, srv, nil)
	resp := refhost.Response{Text: "Looking.", ToolCalls: []host.ToolCall{{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{}`)}}}
	_, err := m.Generate(context.Background(), followUp(resp))
	if !errors.Is(err, openaimodel.ErrAPI) || !strings.Contains(err.Error(), "reasoning_content") {
		t.Fatalf("err = %v, want a 400 about reasoning_content", err)
	}
}

func equalCalls(a, b []host.ToolCall) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Name != b[i].Name || string(a[i].Input) != string(b[i].Input) {
			return false
		}
	}
	return true
}

// TestStreamFallsBackWhenRefused protects endpoints without streaming: a
// refused or ignored stream request is sent once more without streaming,
// and later requests are not streamed.
func TestStreamFallsBackWhenRefused(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts fakeopenai.Options
	}{
		{"refused with 400", fakeopenai.Options{RefuseStream: true}},
		{"answered with JSON", fakeopenai.Options{IgnoreStream: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := startFake(t, tt.opts, fakeopenai.Reply{Text: "one"}, fakeopenai.Reply{Text: "two"})
			d := newDeltas()
			m := streamModel(t, srv, func(c *openaimodel.Config) { c.OnDelta = d.add })
			for _, want := range []string{"one", "two"} {
				resp, err := m.Generate(context.Background(), simpleRequest())
				if err != nil || resp.Text != want {
					t.Fatalf("Generate = %+v, %v; want %q", resp, err, want)
				}
			}
			var streams []bool
			for _, r := range srv.Requests() {
				streams = append(streams, r.Stream)
			}
			want := []bool{true, false, false} // refused, sent again, then plain
			if tt.opts.IgnoreStream {
				want = []bool{true, false} // the JSON answer is used, then plain
			}
			if !slices.Equal(streams, want) {
				t.Errorf("requests stream = %v, want %v", streams, want)
			}
			if text, _, _ := d.got(); text != "onetwo" {
				t.Errorf("deltas text = %q, want the fallback answers", text)
			}
		})
	}
}

// TestStreamRetriesAfter429 protects rate-limited requests: the SDK waits
// for Retry-After and the retry streams the answer.
func TestStreamRetriesAfter429(t *testing.T) {
	srv := startFake(t, fakeopenai.Options{},
		fakeopenai.Reply{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "1"}},
		fakeopenai.Reply{Text: "after the wait"},
	)
	m := streamModel(t, srv, func(c *openaimodel.Config) { c.Retries = 1 })
	start := time.Now()
	resp, err := m.Generate(context.Background(), simpleRequest())
	if err != nil || resp.Text != "after the wait" {
		t.Fatalf("Generate = %+v, %v", resp, err)
	}
	if waited := time.Since(start); waited < 900*time.Millisecond {
		t.Errorf("retried after %s, want Retry-After's 1s", waited)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("requests = %d, want 2", n)
	}
}

// TestStreamBrokenMidway protects against taking half an answer: a
// connection cut mid-stream is an error, not a shorter answer.
func TestStreamBrokenMidway(t *testing.T) {
	srv := startFake(t, fakeopenai.Options{}, fakeopenai.Reply{Text: "a long answer that breaks", Calls: []fakeopenai.Call{readCall}, CutAfter: 3})
	m := streamModel(t, srv, nil)
	resp, err := m.Generate(context.Background(), simpleRequest())
	if !errors.Is(err, openaimodel.ErrStreamBroken) {
		t.Fatalf("Generate = %+v, %v; want ErrStreamBroken", resp, err)
	}
}

// TestSlowStream protects the streaming experience with a slow endpoint:
// text arrives before the answer is complete, a cancelled request ends at
// once, a steady slow stream is not cut by the timeout (it bounds
// silences), and a silent one is.
func TestSlowStream(t *testing.T) {
	t.Run("deltas before the end, then cancel", func(t *testing.T) {
		gate := make(chan struct{})
		defer close(gate)
		srv := startFake(t, fakeopenai.Options{Flavour: fakeopenai.DeepSeek}, fakeopenai.Reply{Reasoning: "thinking hard", Text: "done", Gate: gate})
		d := newDeltas()
		m := streamModel(t, srv, func(c *openaimodel.Config) { c.OnDelta = d.add })
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		errc := make(chan error, 1)
		go func() {
			_, err := m.Generate(ctx, simpleRequest())
			errc <- err
		}()
		// The first event carries only the role; the rest wait for the gate.
		select {
		case <-d.first:
			t.Fatal("a delta arrived past the gate")
		case <-time.After(100 * time.Millisecond):
		}
		cancel()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("Generate did not return after the cancel")
		}
	})
	t.Run("pieces arrive while streaming", func(t *testing.T) {
		srv := startFake(t, fakeopenai.Options{Flavour: fakeopenai.DeepSeek, Delay: 30 * time.Millisecond}, fakeopenai.Reply{Reasoning: "one two three four", Text: "five six seven"})
		d := newDeltas()
		m := streamModel(t, srv, func(c *openaimodel.Config) { c.OnDelta = d.add; c.Timeout = 200 * time.Millisecond })
		errc := make(chan error, 1)
		go func() {
			_, err := m.Generate(context.Background(), simpleRequest())
			errc <- err
		}()
		select {
		case <-d.first:
		case err := <-errc:
			t.Fatalf("ended before any delta: %v", err)
		}
		select {
		case err := <-errc:
			t.Fatalf("the answer was complete at the first delta (err %v)", err)
		default:
		}
		if err := <-errc; err != nil {
			t.Fatalf("a steady slow stream failed: %v", err)
		}
		if text, reasoning, _ := d.got(); text != "five six seven" || reasoning != "one two three four" {
			t.Errorf("deltas = %q, %q", text, reasoning)
		}
	})
	t.Run("silence times out", func(t *testing.T) {
		gate := make(chan struct{})
		defer close(gate)
		srv := startFake(t, fakeopenai.Options{}, fakeopenai.Reply{Text: "never", Gate: gate})
		m := streamModel(t, srv, func(c *openaimodel.Config) { c.Timeout = 100 * time.Millisecond })
		_, err := m.Generate(context.Background(), simpleRequest())
		if !errors.Is(err, openaimodel.ErrSilent) {
			t.Fatalf("err = %v, want ErrSilent", err)
		}
	})
}
