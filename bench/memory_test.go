package bench_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hostkit"
)

// viewSession is a read-only host.Session over a shared event log, so
// that many sessions of a long log cost no copies. It keeps subscribers and
// its close notification the way the stores do (one small record per
// subscription, dropped by the returned func; a context cancelled by
// close), so what a session retains is counted as in a real host.
type viewSession struct {
	id      string
	events  host.Log
	closing context.Context
	close   context.CancelFunc

	mu   sync.Mutex
	subs hostkit.Subscribers
}

var errReadOnly = errors.New("bench: view sessions are read-only")

func newViewSession(id string, events host.Log) *viewSession {
	closing, close := context.WithCancel(context.Background())
	return &viewSession{id: id, events: events, closing: closing, close: close}
}

func (s *viewSession) ID() string       { return s.id }
func (s *viewSession) Events() host.Log { return s.events }
func (s *viewSession) Len() int         { return s.events.Len() }

func (s *viewSession) Append(host.Event) (host.Event, error) { return host.Event{}, errReadOnly }

func (s *viewSession) AppendIf(host.Event, func() bool) (host.Event, bool, error) {
	return host.Event{}, false, errReadOnly
}

func (s *viewSession) Fork(int) (host.Session, error) { return nil, errReadOnly }

// AfterClose implements host.SessionCloseNotifier as the stores do: f
// runs once close was called.
func (s *viewSession) AfterClose(f func()) func() bool { return context.AfterFunc(s.closing, f) }

func (s *viewSession) Subscribe(from int, fn func(host.Event)) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subs.Add(&s.mu, s.events, from, fn)
}

// retainedSessions is how many sessions the retained-state measurement
// serves; enough that the per-session figure does not move with the few
// bytes the runtime allocates meanwhile.
const retainedSessions = 64

// BenchmarkRetainedState measures what the plugin keeps per session it
// serves. Before the timed loop it serves retainedSessions sessions of the
// same log (a section call on each, which makes the controller subscribe
// and fold the log once) and reports the live heap they added, after a
// full GC, divided by their number, as B/session: the controller's
// per-session state, its map entry and the subscription. The timed loop
// then measures serving one more session: ns/op is the cost of first
// sight, one fold of the whole log through the subscription.
func BenchmarkRetainedState(b *testing.B) {
	for _, sz := range []size{size1k, size1M} {
		b.Run(sz.name, func(b *testing.B) {
			events := host.LogOf(logOf(shape{sz.n, modeFirst}))
			p := newPlugin(b)
			agents := make([]host.Agent, retainedSessions)
			for i := range agents {
				agents[i] = &benchAgent{sess: newViewSession(fmt.Sprint("view-", i), events)}
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for _, a := range agents {
				if text := p.SectionText(host.AssembleContext{Agent: a}); text != policy {
					b.Fatalf("section = %q, want the policy", text)
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			runtime.KeepAlive(agents)
			perSession := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / retainedSessions

			b.ReportAllocs()
			var text string
			id := 0
			for b.Loop() {
				// A new session ID each time: the controller keys its
				// state by it, so a repeated ID would be served already.
				id++
				a := &benchAgent{sess: newViewSession("more-"+strconv.Itoa(id), events)}
				text = p.SectionText(host.AssembleContext{Agent: a})
			}
			if text != policy {
				b.Fatalf("section = %q, want the policy", text)
			}
			b.ReportMetric(perSession, "B/session")
		})
	}
}

var _ host.SessionCloseNotifier = (*viewSession)(nil)
