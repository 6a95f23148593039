package pgstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
)

// TestSubscribeFollowsOtherStore: a subscriber on one store gets another
// store's appends through notifications alone (no poll runs).
func TestSubscribeFollowsOtherStore(t *testing.T) {
	a, b, _ := twoStores(t, pgstore.WithPollInterval(time.Hour))
	sa, _ := a.Create("s")
	if _, err := sa.Append(ev("x", 0)); err != nil {
		t.Fatal(err)
	}
	sb, rec := follow(t, b, "s")
	for i := 1; i < 50; i++ {
		if _, err := sa.Append(ev("x", i)); err != nil {
			t.Fatal(err)
		}
	}
	got := rec.waitLen(t, 50, 10*time.Second)
	checkSeqs(t, got)
	if !reflect.DeepEqual(got, sa.Events().Slice()) {
		t.Fatal("B delivered other events than A appended")
	}
	if !reflect.DeepEqual(sb.Events().Slice(), sa.Events().Slice()) {
		t.Fatal("B's log differs from A's")
	}
}

// TestAppendIfSeesEventsWithoutNotification: events committed without a
// notification (as when one is lost) are read under the session's lock
// and delivered before the condition runs.
func TestAppendIfSeesEventsWithoutNotification(t *testing.T) {
	url := pgtest.NewDB(t)
	st := open(t, url, pgstore.WithPollInterval(time.Hour))
	s, _ := st.Create("s")
	var (
		mu   sync.Mutex
		last string
	)
	defer s.Subscribe(0, func(e host.Event) {
		mu.Lock()
		last = e.Type
		mu.Unlock()
	})()
	// The store's listener catches every session up once it listens;
	// let that happen first, so that only AppendIf can learn of the
	// other writer's event below.
	notified(t, url, s)
	// Another writer commits a turn/start and sends no notification.
	ctx := context.Background()
	conn := connect(t, url)
	if _, err := conn.Exec(ctx, `INSERT INTO planmode_events (session_id, seq, type, at, at_ns) VALUES ('s', 2, 'turn/start', now(), 0)`); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 1 {
		t.Fatalf("the session learned of the event before the append (len %d)", s.Len())
	}
	_, ok, err := s.AppendIf(ev("plan/mode", 3), func() bool {
		mu.Lock()
		defer mu.Unlock()
		return last != "turn/start" // commit only between turns
	})
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Fatal("the condition ran on a view without the other writer's turn/start")
	}
	if s.Len() != 2 {
		t.Fatalf("len %d after catch-up, want 2", s.Len())
	}
	if e, err := s.Append(ev("turn/end", 4)); err != nil || e.Seq != 3 {
		t.Fatalf("next append: %+v, %v", e, err)
	}
}

// TestManyGoroutinesTwoPools: 64 goroutines, half on each of two stores,
// append to shared sessions; every log counts up with no gap, holds every
// event once, and both stores' subscribers see the same log.
func TestManyGoroutinesTwoPools(t *testing.T) {
	a, b, _ := twoStores(t)
	const (
		sessions   = 4
		goroutines = 64
		each       = 5
	)
	ids := make([]string, sessions)
	recs := map[*pgstore.Store][]*recorder{}
	for i := range ids {
		ids[i] = fmt.Sprintf("s%d", i)
		if _, err := a.Create(ids[i]); err != nil {
			t.Fatal(err)
		}
		for _, st := range []*pgstore.Store{a, b} {
			s, err := st.Open(ids[i])
			if err != nil {
				t.Fatal(err)
			}
			r := newRecorder()
			defer s.Subscribe(0, r.add)()
			recs[st] = append(recs[st], r)
		}
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		st := []*pgstore.Store{a, b}[g%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range each {
				s, err := st.Open(ids[(g+k)%sessions])
				if err != nil {
					t.Error(err)
					return
				}
				e := host.Event{Type: "x", Data: json.RawMessage(fmt.Sprintf(`{"g":%d,"k":%d}`, g, k))}
				if k%2 == 0 {
					_, err = s.Append(e)
				} else {
					_, _, err = s.AppendIf(e, func() bool { return true })
				}
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for i, id := range ids {
		sa, _ := a.Open(id)
		n := sa.Len()
		total += n
		ra := recs[a][i].waitLen(t, n, 10*time.Second)
		rb := recs[b][i].waitLen(t, n, 10*time.Second)
		checkSeqs(t, ra)
		if !reflect.DeepEqual(ra, rb) {
			t.Fatalf("session %s: the stores' subscribers saw different logs", id)
		}
		seen := map[string]bool{}
		for _, e := range ra {
			if seen[string(e.Data)] {
				t.Fatalf("session %s: event %s twice", id, e.Data)
			}
			seen[string(e.Data)] = true
		}
	}
	if total != goroutines*each {
		t.Fatalf("%d events stored, want %d", total, goroutines*each)
	}
}

// TestPollCatchesUpWithoutNotification: an event committed with no
// notification reaches an idle session's subscriber by the next poll.
func TestPollCatchesUpWithoutNotification(t *testing.T) {
	url := pgtest.NewDB(t)
	st := open(t, url, pgstore.WithPollInterval(50*time.Millisecond))
	s, _ := st.Create("s")
	rec := newRecorder()
	defer s.Subscribe(0, rec.add)()
	ctx := context.Background()
	conn := connect(t, url)
	if _, err := conn.Exec(ctx, `INSERT INTO planmode_events (session_id, seq, type, at, at_ns) VALUES ('s', 1, 'x', now(), 0)`); err != nil {
		t.Fatal(err)
	}
	got := rec.waitLen(t, 1, 5*time.Second)
	if got[0].Type != "x" || got[0].Seq != 1 {
		t.Fatalf("delivered %+v", got[0])
	}
}

// notified commits the next event of s (type "x") from another
// connection, announces it with a notification and waits until s has it.
// A store catches a session up when it is opened, and its listener once
// it listens; so from then on st listens, and no catch-up of s is under
// way or to come unless a notification, poll or append asks for one.
func notified(t *testing.T, url string, s host.Session) {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, url)
	n := s.Len() + 1
	if _, err := conn.Exec(ctx, `INSERT INTO planmode_events (session_id, seq, type, at, at_ns) VALUES ($1, $2, 'x', now(), 0)`, s.ID(), n); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_notify('planmode_events', $1)`, fmt.Sprintf("%s %d", s.ID(), n)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the notified event", 20*time.Second, func() bool { return s.Len() == n })
}
