package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
)

// TestServerKilledMidAppend kills the server ("pg_ctl stop -m immediate")
// while appends run, then restarts it. Appends fail with clear errors
// meanwhile and succeed again afterwards; no acknowledged event is lost,
// none is stored twice or in part, and the store's own log and its
// subscriber end up equal to the database's.
func TestServerKilledMidAppend(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv) + "&connect_timeout=2"
	st := open(t, url, pgstore.WithTimeout(5*time.Second), pgstore.WithPollInterval(200*time.Millisecond))
	s, err := st.Create("s")
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	defer s.Subscribe(0, rec.add)()

	var (
		acked    = map[int]bool{}
		failures []error
		next     atomic.Int64
		stop     = make(chan struct{})
		done     = make(chan struct{})
	)
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			n := int(next.Add(1))
			if _, err := s.Append(ev("x", n)); err != nil {
				failures = append(failures, err)
				time.Sleep(20 * time.Millisecond)
				continue
			}
			acked[n] = true
		}
	}()
	waitFor(t, "appends before the kill", 10*time.Second, func() bool { return next.Load() > 20 })
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	before := next.Load()
	waitFor(t, "appends to fail while the server is down", 10*time.Second, func() bool { return next.Load() > before+2 })
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	after := next.Load()
	waitFor(t, "appends after the restart", 20*time.Second, func() bool { return next.Load() > after+20 })
	close(stop)
	<-done

	if len(failures) == 0 {
		t.Fatal("no append failed while the server was down")
	}
	for _, err := range failures {
		if !strings.HasPrefix(err.Error(), `pgstore: session "s": append`) {
			t.Fatalf("unclear error while the server was down: %v", err)
		}
	}
	st2 := open(t, url)
	s2, err := st2.Open("s")
	if err != nil {
		t.Fatal(err)
	}
	stored := s2.Events().Slice()
	checkSeqs(t, stored)
	seen := map[int]bool{}
	prev := 0
	for _, e := range stored {
		var p struct{ N int }
		if err := json.Unmarshal(e.Data, &p); err != nil || e.Type != "x" {
			t.Fatalf("event %d is not whole: %q %s", e.Seq, e.Type, e.Data)
		}
		if seen[p.N] || p.N <= prev {
			t.Fatalf("event %d holds n=%d after n=%d: duplicated or reordered", e.Seq, p.N, prev)
		}
		seen[p.N], prev = true, p.N
	}
	for n := range acked {
		if !seen[n] {
			t.Fatalf("acknowledged append n=%d is lost", n)
		}
	}
	// An append whose commit outcome was unknown reaches the store's own
	// log by catching up: it equals the database's, once each.
	waitFor(t, "the store to catch up", 10*time.Second, func() bool { return s.Len() == len(stored) })
	got := rec.waitLen(t, len(stored), 10*time.Second)
	checkSeqs(t, got)
	if len(got) != len(stored) {
		t.Fatalf("subscriber saw %d events, database holds %d", len(got), len(stored))
	}
	t.Logf("%d appends acknowledged, %d failed while the server was down, %d stored", len(acked), len(failures), len(stored))
}

// TestTerminatedConnectionsDuringSubscription kills every connection of
// the subscribing store (its listener and its pool) again and again while
// another store appends: the subscriber still sees every event once, in
// order.
func TestTerminatedConnectionsDuringSubscription(t *testing.T) {
	url := pgtest.NewDB(t)
	a := open(t, url)
	b := open(t, url+"&application_name=pgstore-victim", pgstore.WithPollInterval(100*time.Millisecond))
	sa, _ := a.Create("s")
	sb, rec := follow(t, b, "s")

	ctx := context.Background()
	conn := connect(t, url)
	const n = 200
	killed := 0
	for i := range n {
		if _, err := sa.Append(ev("x", i)); err != nil {
			t.Fatal(err)
		}
		if i%25 == 10 {
			var k int
			if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE application_name = 'pgstore-victim'`).Scan(&k); err != nil {
				t.Fatal(err)
			}
			killed += k
		}
	}
	if killed == 0 {
		t.Fatal("no connection was terminated")
	}
	got := rec.waitLen(t, n, 20*time.Second)
	checkSeqs(t, got)
	if len(got) != n {
		t.Fatalf("subscriber saw %d events, want %d", len(got), n)
	}
	// B's pool reconnects for its own appends too.
	if e, err := sb.Append(ev("y", 0)); err != nil || e.Seq != n+1 {
		if err == nil {
			err = errors.New("wrong seq")
		}
		t.Fatalf("append on B after the kills: %+v, %v", e, err)
	}
}

// TestStatementTimeout: an append blocked on the session's lock past the
// server's statement_timeout fails with an error naming the statement and
// leaves nothing; the next append succeeds.
func TestStatementTimeout(t *testing.T) {
	url := pgtest.NewDB(t)
	st := open(t, url+"&statement_timeout=200")
	s, _ := st.Create("s")
	if _, err := s.Append(ev("x", 1)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn := connect(t, url)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM planmode_sessions WHERE id = 's' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	var appendErr error
	go func() {
		defer wg.Done()
		_, appendErr = s.Append(ev("x", 2))
	}()
	wg.Wait()
	var pe *pgconn.PgError
	if !errors.As(appendErr, &pe) || pe.Code != "57014" || !strings.Contains(appendErr.Error(), "lock session") {
		t.Fatalf("append error %v, want a statement timeout naming the lock", appendErr)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if e, err := s.Append(ev("x", 3)); err != nil || e.Seq != 2 {
		t.Fatalf("append after the timeout: %+v, %v", e, err)
	}
	var rows int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM planmode_events WHERE session_id = 's'`).Scan(&rows); err != nil || rows != 2 {
		t.Fatalf("%d rows (%v), want 2", rows, err)
	}
	if _, err := st.Open("s"); err != nil {
		t.Fatal(err)
	}
}

// TestAppendAfterTerminatedConnections: the pool's idle connections were
// killed; the next appends begin on a fresh connection instead of failing.
func TestAppendAfterTerminatedConnections(t *testing.T) {
	url := pgtest.NewDB(t)
	st := open(t, url+"&application_name=pgstore-victim2")
	s, _ := st.Create("s")
	ctx := context.Background()
	conn := connect(t, url)
	for round := range 5 {
		if _, err := s.Append(ev("x", round)); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pgstore-victim2'`); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Append(ev("x", 5)); err != nil {
		t.Fatal(err)
	}
	checkSeqs(t, s.Events().Slice())
}
