package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
)

// open opens a store on url, closed when the test ends.
func open(t testing.TB, url string, opts ...pgstore.Option) *pgstore.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := pgstore.Open(ctx, url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// twoStores returns two stores (two "processes": separate pools and
// listeners) on one fresh database.
func twoStores(t testing.TB, opts ...pgstore.Option) (*pgstore.Store, *pgstore.Store, string) {
	t.Helper()
	url := pgtest.NewDB(t)
	return open(t, url, opts...), open(t, url, opts...), url
}

// ev returns an event of type typ whose data is {"n":n}.
func ev(typ string, n int) host.Event {
	return host.Event{Type: typ, Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))}
}

// refuseType adds validator name to st, removed when the test ends: it
// refuses events of type typ with the error msg.
func refuseType(t testing.TB, st host.Store, name, typ, msg string) {
	t.Helper()
	remove, err := st.AddValidator(name, func(e host.Event) error {
		if e.Type == typ {
			return errors.New(msg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
}

// recorder collects delivered events.
type recorder struct {
	mu     sync.Mutex
	events []host.Event
	signal chan struct{}
}

func newRecorder() *recorder { return &recorder{signal: make(chan struct{}, 1)} }

func (r *recorder) add(e host.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

func (r *recorder) got() []host.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]host.Event(nil), r.events...)
}

// follow opens session id on st with a recorder subscribed from its
// start, unsubscribed when the test ends.
func follow(t testing.TB, st host.Store, id string) (host.Session, *recorder) {
	t.Helper()
	s, err := st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	t.Cleanup(s.Subscribe(0, rec.add))
	return s, rec
}

// waitLen waits until r holds n events.
func (r *recorder) waitLen(t testing.TB, n int, within time.Duration) []host.Event {
	t.Helper()
	deadline := time.After(within)
	for {
		if got := r.got(); len(got) >= n {
			return got
		}
		select {
		case <-r.signal:
		case <-deadline:
			t.Fatalf("recorder: %d events after %s, want %d", len(r.got()), within, n)
		}
	}
}

// checkSeqs fails unless events count 1, 2, 3, ...
func checkSeqs(t testing.TB, events []host.Event) {
	t.Helper()
	for i, e := range events {
		if e.Seq != uint64(i)+1 {
			t.Fatalf("event %d has seq %d, want %d", i, e.Seq, i+1)
		}
	}
}

// waitFor polls cond until it holds.
func waitFor(t testing.TB, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// connect opens a plain connection to url, as another program would,
// closed when the test ends.
func connect(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// listen returns a connection listening on the stores' channel.
func listen(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	conn := connect(t, url)
	if _, err := conn.Exec(context.Background(), `LISTEN planmode_events`); err != nil {
		t.Fatal(err)
	}
	return conn
}
