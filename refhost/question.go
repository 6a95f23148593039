package refhost

import (
	"context"
	"fmt"
	"sync"

	"github.com/dshgo/planmode/host"
)

// Provider is a UI that can put questions to the user.
type Provider interface {
	// Ask shows the questions and waits for the answers or for ctx. It
	// returns errors wrapping host.ErrDismissed or host.ErrAborted as fits.
	Ask(ctx context.Context, req host.AskRequest) ([]host.Answer, error)
}

// Questions is the user-question service: it validates each request and
// hands it to the attached provider. It implements [host.UserQuestions].
// The zero value has no provider.
type Questions struct {
	mu       sync.RWMutex
	provider *Provider
}

// SetProvider attaches p. Only one provider is attached at a time: while
// one is, SetProvider is ErrDuplicate. The returned func detaches p (only
// p, and only once).
func (q *Questions) SetProvider(p Provider) (unset func(), err error) {
	if p == nil {
		return nil, fmt.Errorf("refhost: questions: provider is nil: %w", ErrBadRegistration)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.provider != nil {
		return nil, fmt.Errorf("refhost: questions: provider: %w", host.ErrDuplicate)
	}
	mine := &p
	q.provider = mine
	return func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		if q.provider == mine {
			q.provider = nil
		}
	}, nil
}

// Ask implements [host.UserQuestions]. It checks the request first: no
// questions is host.ErrNoQuestions; a question with an empty or repeated ID
// is ErrBadQuestion; options whose roles do not fit the request's kind are
// host.ErrBadRoles (see [host.CheckRoles]). Then, with no provider attached, it
// is host.ErrNoProvider. The provider's own errors are returned as they
// are, so that their messages reach the caller unchanged.
func (q *Questions) Ask(ctx context.Context, req host.AskRequest) ([]host.Answer, error) {
	if err := ValidateAsk(req); err != nil {
		return nil, err
	}
	q.mu.RLock()
	p := q.provider
	q.mu.RUnlock()
	if p == nil {
		return nil, fmt.Errorf("refhost: ask: %w", host.ErrNoProvider)
	}
	if req.Agent != nil {
		// A durability point: what led to the question is shown with it.
		if err := host.Sync(req.Agent.Session()); err != nil {
			return nil, fmt.Errorf("refhost: ask: %w", err)
		}
	}
	return (*p).Ask(ctx, req)
}

// ValidateAsk checks a request as [Questions.Ask] does.
func ValidateAsk(req host.AskRequest) error {
	if len(req.Questions) == 0 {
		return fmt.Errorf("refhost: ask: %w", host.ErrNoQuestions)
	}
	seen := make(map[string]bool, len(req.Questions))
	for i, qu := range req.Questions {
		switch {
		case qu.ID == "":
			return fmt.Errorf("refhost: ask: question %d: id is empty: %w", i+1, ErrBadQuestion)
		case seen[qu.ID]:
			return fmt.Errorf("refhost: ask: question %d: id %q repeats an earlier one: %w", i+1, qu.ID, ErrBadQuestion)
		}
		seen[qu.ID] = true
	}
	if err := host.CheckRoles(req); err != nil {
		return fmt.Errorf("refhost: ask: %w", err)
	}
	return nil
}

var _ host.UserQuestions = (*Questions)(nil)
