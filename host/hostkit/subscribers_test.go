package hostkit_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hostkit"
)

// subList is a minimal session around hostkit.Subscribers: a log and its
// append lock.
type subList struct {
	mu   sync.Mutex
	b    *hostkit.LogBuilder
	subs hostkit.Subscribers
}

func newSubList(n int) *subList {
	l := &subList{b: hostkit.NewLogBuilder(host.Log{})}
	for range n {
		l.append()
	}
	return l
}

func (l *subList) append() {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.b.Append(host.Event{Seq: uint64(l.b.Len()) + 1, Type: "test/n"})
	l.subs.Deliver(e)
}

func (l *subList) subscribe(from int, fn func(host.Event)) func() {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.subs.Add(&l.mu, l.b.Log(), from, fn)
}

// seqLog collects the seqLog a subscriber sees.
type seqLog struct {
	mu  sync.Mutex
	got []uint64
}

func (s *seqLog) fn(e host.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, e.Seq)
}

func (s *seqLog) seen() []uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

func seqRange(from, to int) []uint64 {
	var out []uint64
	for i := from; i < to; i++ {
		out = append(out, uint64(i+1))
	}
	return out
}

func TestSubscribersReplayThenDeliver(t *testing.T) {
	tests := []struct {
		name string
		log  int // events before Subscribe
		from int
		want []uint64 // after two more appends
	}{
		{"from the start", 3, 0, seqRange(0, 5)},
		{"from the middle", 3, 2, seqRange(2, 5)},
		{"from the end: new events only", 3, 3, seqRange(3, 5)},
		{"past the end replays nothing", 3, 10, seqRange(3, 5)},
		{"a negative index replays all", 3, -1, seqRange(0, 5)},
		{"an empty log", 0, 0, seqRange(0, 2)},
		{"across chunks", 2500, 1020, seqRange(1020, 2502)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newSubList(tt.log)
			var s seqLog
			stop := l.subscribe(tt.from, s.fn)
			l.append()
			l.append()
			stop()
			l.append()
			if got := s.seen(); !slices.Equal(got, tt.want) {
				t.Fatalf("subscriber saw %d events %v…, want %d %v…", len(got), head(got), len(tt.want), head(tt.want))
			}
		})
	}
}

func head(s []uint64) []uint64 { return s[:min(len(s), 5)] }

// Subscribers get each event in the order they were added; removing one
// leaves the others, and unsubscribing twice is harmless.
func TestSubscribersOrderAndRemoval(t *testing.T) {
	l := newSubList(0)
	var order []string
	mk := func(name string) func(host.Event) {
		return func(host.Event) { order = append(order, name) }
	}
	stopA := l.subscribe(0, mk("a"))
	stopB := l.subscribe(0, mk("b"))
	l.subscribe(0, mk("c"))
	l.append()
	stopB()
	stopB()
	l.append()
	stopA()
	l.append()
	want := []string{"a", "b", "c", "a", "c", "c"}
	if !slices.Equal(order, want) {
		t.Fatalf("deliveries = %v, want %v", order, want)
	}
}

// While appends run on other goroutines, a subscriber is never called once
// its unsubscribe returned, and it saw a gapless prefix of the log.
func TestSubscribersUnsubscribeStopsAtOnce(t *testing.T) {
	l := newSubList(0)
	var (
		mu      sync.Mutex
		stopped bool
		late    int
		got     []uint64
	)
	stop := l.subscribe(0, func(e host.Event) {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			late++
		}
		got = append(got, e.Seq)
	})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				l.append()
			}
		}()
	}
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 100 {
			break
		}
	}
	stop()
	mu.Lock()
	stopped = true
	mu.Unlock()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if late != 0 {
		t.Fatalf("subscriber called %d times after unsubscribe returned", late)
	}
	if want := seqRange(0, len(got)); !slices.Equal(got, want) {
		t.Fatalf("subscriber saw %v…, want a gapless prefix of the log", head(got))
	}
}
