package pgtest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

// Gate holds a turn at one point until the test opens it, so that a test
// playing two processes on one database acts while one's turn waits. The
// turn does not wait for its context: a paused process does not notice
// either.
type Gate struct {
	entered, release chan struct{}
	once             sync.Once
}

// NewGate returns a gate that holds the first turn to reach it.
func NewGate() *Gate { return &Gate{entered: make(chan struct{}), release: make(chan struct{})} }

func (g *Gate) hold() {
	close(g.entered)
	<-g.release
}

// Step returns a model step that waits at g, then answers with resp.
func (g *Gate) Step(resp refhost.Response) scripted.Step {
	return scripted.Step{Respond: func(context.Context, refhost.Request) (refhost.Response, error) {
		g.hold()
		return resp, nil
	}}
}

// BeforeStep makes rt's turns wait at g before step n, between two steps,
// until the returned func removes the hold.
func (g *Gate) BeforeStep(tb testing.TB, rt *refhost.Runtime, n int) func() {
	tb.Helper()
	unset, err := rt.AddPreStep("test/hold", func(ctx context.Context, s host.Step, next host.PreStepNext) host.Decision {
		if s.Step == n {
			g.hold()
		}
		return next(ctx, s)
	}, true)
	if err != nil {
		tb.Fatal(err)
	}
	return unset
}

// Reached waits until a turn waits at g; what names the point.
func (g *Gate) Reached(tb testing.TB, what string) {
	tb.Helper()
	select {
	case <-g.entered:
	case <-time.After(20 * time.Second):
		tb.Fatalf("timed out waiting for %s", what)
	}
}

// Open lets the turn at g go on; it is idempotent. Tests defer it too, so
// that a failed test leaves no turn waiting (deferred calls run before the
// cleanups that stop the agents).
func (g *Gate) Open() { g.once.Do(func() { close(g.release) }) }
