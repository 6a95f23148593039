package scripted

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

// ErrScriptExhausted means the model was called more often than its script
// has steps.
var ErrScriptExhausted = errors.New("script exhausted")

// Step is one scripted answer to a Generate call. Exactly one way of
// answering is used, checked in this order: Respond, Block, Err, and
// otherwise the response Text and ToolCalls.
type Step struct {
	// Text is the assistant text.
	Text string
	// Reasoning is the model's reasoning text, returned with the response.
	Reasoning string
	// ToolCalls are the tool calls the model asks for.
	ToolCalls []host.ToolCall
	// Err makes the call a request error.
	Err error
	// Block makes the call wait until its context is done and return the
	// context's error (to test cancellation during a model call).
	Block bool
	// Respond computes the answer from the request.
	Respond func(ctx context.Context, req refhost.Request) (refhost.Response, error)
}

// Model is a [refhost.Model] that answers from a script and records every
// request. It is safe for concurrent use; concurrent calls take steps in
// the order they lock the model.
type Model struct {
	mu      sync.Mutex
	steps   []Step
	next    int
	reqs    []refhost.Request
	changed chan struct{} // closed and replaced on every call
}

// NewModel returns a model that answers with steps, in order.
func NewModel(steps ...Step) *Model {
	return &Model{steps: slices.Clone(steps), changed: make(chan struct{})}
}

// Add appends steps to the script.
func (m *Model) Add(steps ...Step) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.steps = append(m.steps, steps...)
}

// Generate implements [refhost.Model]: it records a copy of req and
// answers with the next step. When the script has run out it returns an
// error wrapping ErrScriptExhausted.
func (m *Model) Generate(ctx context.Context, req refhost.Request) (refhost.Response, error) {
	m.mu.Lock()
	m.reqs = append(m.reqs, cloneRequest(req))
	call := len(m.reqs)
	close(m.changed)
	m.changed = make(chan struct{})
	if m.next >= len(m.steps) {
		n := len(m.steps)
		m.mu.Unlock()
		return refhost.Response{}, fmt.Errorf("scripted model: call %d: the script has %d steps: %w", call, n, ErrScriptExhausted)
	}
	s := m.steps[m.next]
	m.next++
	m.mu.Unlock()
	switch {
	case s.Respond != nil:
		return s.Respond(ctx, req)
	case s.Block:
		<-ctx.Done()
		return refhost.Response{}, fmt.Errorf("scripted model: call %d: %w", call, ctx.Err())
	case s.Err != nil:
		return refhost.Response{}, s.Err
	}
	return refhost.Response{Text: s.Text, ToolCalls: cloneCalls(s.ToolCalls), Reasoning: s.Reasoning}, nil
}

// Requests returns copies of the requests received so far, in order.
func (m *Model) Requests() []refhost.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]refhost.Request, len(m.reqs))
	for i, r := range m.reqs {
		out[i] = cloneRequest(r)
	}
	return out
}

// Calls returns the number of Generate calls so far.
func (m *Model) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.reqs)
}

// Remaining returns the number of steps not yet used.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.steps) - m.next
}

// WaitCalls blocks until the model has received at least n calls (a
// blocking step counts from the moment it started) or ctx is done.
func (m *Model) WaitCalls(ctx context.Context, n int) error {
	return waitCount(ctx, n, "model", "calls", func() (int, chan struct{}) {
		m.mu.Lock()
		defer m.mu.Unlock()
		return len(m.reqs), m.changed
	})
}

// waitCount blocks until count reports at least n or ctx is done; count
// returns the number so far and a channel closed when it changes. who and
// what name the wait in the error.
func waitCount(ctx context.Context, n int, who, what string, count func() (int, chan struct{})) error {
	for {
		got, changed := count()
		if got >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("scripted %s: waiting for %d %s (have %d): %w", who, n, what, got, ctx.Err())
		}
	}
}

// cloneRequest returns a deep copy of r.
func cloneRequest(r refhost.Request) refhost.Request {
	r.Sections = slices.Clone(r.Sections)
	r.Tools = slices.Clone(r.Tools)
	for i := range r.Tools {
		r.Tools[i].InputSchema = slices.Clone(r.Tools[i].InputSchema)
		r.Tools[i].OutputSchema = slices.Clone(r.Tools[i].OutputSchema)
	}
	r.Messages = slices.Clone(r.Messages)
	for i := range r.Messages {
		msg := &r.Messages[i]
		msg.Content = slices.Clone(msg.Content)
		for j := range msg.Content {
			msg.Content[j].Data = slices.Clone(msg.Content[j].Data)
		}
		msg.ToolCalls = cloneCalls(msg.ToolCalls)
	}
	return r
}

func cloneCalls(calls []host.ToolCall) []host.ToolCall {
	calls = slices.Clone(calls)
	for i := range calls {
		calls[i].Input = slices.Clone(calls[i].Input)
	}
	return calls
}

var _ refhost.Model = (*Model)(nil)
