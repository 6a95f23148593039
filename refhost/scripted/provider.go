package scripted

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

// ErrNoScriptedAnswer means an Ask found neither a queued reply nor a
// queued answer for any of its questions.
var ErrNoScriptedAnswer = errors.New("no scripted answer")

// Reply is one whole scripted reply to an Ask: answers, or an error (such
// as one wrapping host.ErrDismissed).
type Reply struct {
	// Answers are returned as they are.
	Answers []host.Answer
	// Err, when set, is returned instead.
	Err error
}

// Provider is a [refhost.Provider] for tests. An Ask takes the next queued
// Reply when there is one; otherwise it answers each question with the
// next answer queued for its ID, skipping questions that have none. It
// records every request, and while held it blocks each Ask until it is
// released or the Ask's context is done. It is safe for concurrent use.
type Provider struct {
	mu      sync.Mutex
	replies []Reply
	answers map[string][]host.Answer
	reqs    []host.AskRequest
	hold    chan struct{} // non-nil while held; closed on release
	changed chan struct{} // closed and replaced on every Ask
}

// NewProvider returns a provider with nothing queued.
func NewProvider() *Provider {
	return &Provider{answers: map[string][]host.Answer{}, changed: make(chan struct{})}
}

// QueueReply queues whole replies, used in order by the next Asks.
func (p *Provider) QueueReply(rs ...Reply) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.replies = append(p.replies, rs...)
}

// QueueAnswers queues answers under their QuestionID; each answers one
// question with that ID, in order.
func (p *Provider) QueueAnswers(as ...host.Answer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range as {
		p.answers[a.QuestionID] = append(p.answers[a.QuestionID], a)
	}
}

// Hold makes every Ask, from now until release is called, wait before
// answering. A waiting Ask whose context is done returns an error wrapping
// both host.ErrAborted and the context's error. release is safe to call
// more than once.
func (p *Provider) Hold() (release func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch := make(chan struct{})
	p.hold = ch
	return sync.OnceFunc(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		close(ch)
		if p.hold == ch {
			p.hold = nil
		}
	})
}

// Ask implements [refhost.Provider].
func (p *Provider) Ask(ctx context.Context, req host.AskRequest) ([]host.Answer, error) {
	p.mu.Lock()
	p.reqs = append(p.reqs, cloneAsk(req))
	hold := p.hold
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, fmt.Errorf("scripted provider: %w: %w", host.ErrAborted, ctx.Err())
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("scripted provider: %w: %w", host.ErrAborted, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.replies) > 0 {
		r := p.replies[0]
		p.replies = p.replies[1:]
		return r.Answers, r.Err
	}
	var out []host.Answer
	for _, q := range req.Questions {
		if queued := p.answers[q.ID]; len(queued) > 0 {
			out = append(out, queued[0])
			p.answers[q.ID] = queued[1:]
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("scripted provider: ask %d: %w", len(p.reqs), ErrNoScriptedAnswer)
	}
	return out, nil
}

// Requests returns copies of the requests received so far, in order.
func (p *Provider) Requests() []host.AskRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]host.AskRequest, len(p.reqs))
	for i, r := range p.reqs {
		out[i] = cloneAsk(r)
	}
	return out
}

// WaitRequests blocks until at least n Asks have arrived (a held Ask
// counts from the moment it started waiting) or ctx is done.
func (p *Provider) WaitRequests(ctx context.Context, n int) error {
	return waitCount(ctx, n, "provider", "asks", func() (int, chan struct{}) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.reqs), p.changed
	})
}

func cloneAsk(r host.AskRequest) host.AskRequest {
	qs := make([]host.Question, len(r.Questions))
	for i, q := range r.Questions {
		q.Options = append([]host.Option(nil), q.Options...)
		qs[i] = q
	}
	r.Questions = qs
	return r
}

var _ refhost.Provider = (*Provider)(nil)
