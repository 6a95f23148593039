package pgstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
)

// leaser opens id on st as a turn leaser.
func leaser(t *testing.T, st *pgstore.Store, id string) (host.Session, host.TurnLeaser) {
	t.Helper()
	s, err := st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	l, ok := s.(host.TurnLeaser)
	if !ok {
		t.Fatal("pgstore session is not a host.TurnLeaser")
	}
	return s, l
}

// TestLeaseOneOwnerAndFencing: a live lease makes the session busy for
// another process, naming the holder; a lease that ran out (its holder
// stopped renewing, as a paused process does) is granted again with a
// larger token, and the old holder's appends are refused by the store.
func TestLeaseOneOwnerAndFencing(t *testing.T) {
	const ttl = 600 * time.Millisecond
	a, b, _ := twoStores(t, pgstore.WithLeaseExpiry(ttl))
	if _, err := a.Create("s"); err != nil {
		t.Fatal(err)
	}
	sa, la := leaser(t, a, "s")
	sb, lb := leaser(t, b, "s")

	ga, err := la.LeaseTurn()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ga.Append(ev("test/a", 1)); err != nil {
		t.Fatal(err)
	}
	_, err = lb.LeaseTurn()
	var busy *host.BusyError
	if !errors.As(err, &busy) || !errors.Is(err, host.ErrBusy) || busy.Holder.PID == 0 || busy.Holder.Host == "" || busy.Holder.Since.IsZero() {
		t.Fatalf("second lease: %v (%+v), want busy naming the holder", err, busy)
	}
	// The holder keeps its lease past the expiry by renewing it.
	time.Sleep(2 * ttl)
	if _, err := lb.LeaseTurn(); !errors.Is(err, host.ErrBusy) {
		t.Fatalf("lease while renewed: %v, want busy", err)
	}
	select {
	case <-ga.Lost():
		t.Fatal("renewed lease reported lost")
	default:
	}
	if err := ga.Release(); err != nil {
		t.Fatal(err)
	}
	gb, err := lb.LeaseTurn()
	if err != nil {
		t.Fatalf("lease after release: %v", err)
	}
	if gb.Token() <= ga.Token() {
		t.Fatalf("token %d after %d, want larger", gb.Token(), ga.Token())
	}
	// The old grant's writes are fenced, and the refusal says so.
	if _, err := ga.Append(ev("test/late", 2)); !errors.Is(err, host.ErrFenced) {
		t.Fatalf("append under a released lease: %v, want ErrFenced", err)
	}
	select {
	case <-ga.Lost():
	default:
		t.Fatal("fenced lease not reported lost")
	}
	if _, err := gb.Append(ev("test/b", 3)); err != nil {
		t.Fatal(err)
	}
	// Unleased appends (a message queued for the owner) still go in.
	if _, err := sa.Append(ev("test/queued", 4)); err != nil {
		t.Fatal(err)
	}
	if err := gb.Release(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "b sees 3 events", 5*time.Second, func() bool { return sb.Len() == 3 })
	for i, typ := range []string{"test/a", "test/b", "test/queued"} {
		if got := sb.Events().At(i).Type; got != typ {
			t.Fatalf("event %d is %q, want %q", i, got, typ)
		}
	}
}

// TestLeaseExpiresWhenHolderStops: a holder whose renewals stop (its
// store is closed, as when the process dies) loses the lease within the
// expiry, and another process is granted it.
func TestLeaseExpiresWhenHolderStops(t *testing.T) {
	const ttl = 500 * time.Millisecond
	a, b, _ := twoStores(t, pgstore.WithLeaseExpiry(ttl))
	if _, err := a.Create("s"); err != nil {
		t.Fatal(err)
	}
	_, la := leaser(t, a, "s")
	_, lb := leaser(t, b, "s")
	if _, err := la.LeaseTurn(); err != nil {
		t.Fatal(err)
	}
	_ = a.Close() // renewals stop; the lease row stays
	start := time.Now()
	var g host.TurnLease
	waitFor(t, "b granted the lease", 5*time.Second, func() bool {
		var err error
		g, err = lb.LeaseTurn()
		return err == nil
	})
	if d := time.Since(start); d > ttl+300*time.Millisecond {
		t.Fatalf("granted after %s, want within the expiry %s", d, ttl)
	}
	if err := g.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestLeaseExpiryOption(t *testing.T) {
	if _, err := pgstore.Open(t.Context(), "postgres://localhost/x", pgstore.WithLeaseExpiry(time.Millisecond)); !errors.Is(err, pgstore.ErrBadOption) {
		t.Fatalf("1ms expiry: %v, want ErrBadOption", err)
	}
}

// TestLeaseNotBlockedByPausedAppend: a process paused inside an append's
// transaction (it holds the session's row lock) blocks another process's
// lease grant for about the lease expiry at most: the server ends the
// idle transaction, and its writes never commit.
func TestLeaseNotBlockedByPausedAppend(t *testing.T) {
	const ttl = 500 * time.Millisecond
	a, b, _ := twoStores(t, pgstore.WithLeaseExpiry(ttl))
	if _, err := a.Create("s"); err != nil {
		t.Fatal(err)
	}
	_, lb := leaser(t, b, "s")
	conn, err := a.Pool().Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	tx, err := conn.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(t.Context()) }()
	if _, err := tx.Exec(t.Context(), `SELECT fence FROM planmode_sessions WHERE id = 's' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	g, err := lb.LeaseTurn()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = g.Release() }()
	if d := time.Since(start); d > 3*ttl {
		t.Fatalf("lease granted after %s, want about the expiry %s", d, ttl)
	}
	if _, err := tx.Exec(t.Context(), `UPDATE planmode_sessions SET fence = fence WHERE id = 's'`); err == nil {
		t.Fatal("the paused transaction still writes")
	}
}

// TestLeaseHolderOfAReleasedLease: a grant can lose to a holder that then
// releases its lease before the holder is read; the read then finds no
// lease at all (its expiry NULL) and must say "not live", not fail, so
// that LeaseTurn asks again instead of failing the turn (as it did, with
// "cannot scan NULL into *bool", once three processes shared a session).
func TestLeaseHolderOfAReleasedLease(t *testing.T) {
	a, _, _ := twoStores(t)
	if _, err := a.Create("s"); err != nil {
		t.Fatal(err)
	}
	for _, stage := range []string{"never leased", "released"} {
		live, err := pgstore.LeaseHolder(a, "s")
		if err != nil || live {
			t.Fatalf("%s: live %v, err %v; want not live and no error", stage, live, err)
		}
		_, l := leaser(t, a, "s")
		g, err := l.LeaseTurn()
		if err != nil {
			t.Fatal(err)
		}
		if live, err := pgstore.LeaseHolder(a, "s"); err != nil || !live {
			t.Fatalf("held: live %v, err %v", live, err)
		}
		g.Release()
	}
}

// TestLeaseLostSaysWhy: a lease lost because another process was granted
// it and one lost because it could not be renewed (the database
// unreachable) are told apart by Err, so the user reads the right cause.
func TestLeaseLostSaysWhy(t *testing.T) {
	const ttl = 600 * time.Millisecond
	tests := []struct {
		name string
		lose func(t *testing.T, url string, st *pgstore.Store, srv *pgtest.Server)
		want error
	}{
		{"another process granted it", func(t *testing.T, url string, st *pgstore.Store, _ *pgtest.Server) {
			// The lease runs out in the database, as a paused holder's
			// does, and another process takes it (before the holder's
			// next renewal, which may come first: then again).
			b := open(t, url, pgstore.WithLeaseExpiry(ttl))
			_, lb := leaser(t, b, "s")
			waitFor(t, "another process granted the lease", 5*time.Second, func() bool {
				if _, err := st.Pool().Exec(t.Context(), `UPDATE planmode_sessions SET lease_until = clock_timestamp() WHERE id = 's'`); err != nil {
					t.Fatal(err)
				}
				g, err := lb.LeaseTurn()
				if err == nil {
					t.Cleanup(func() { _ = g.Release() })
				}
				return err == nil
			})
		}, host.ErrFenced},
		{"the database is unreachable", func(t *testing.T, _ string, _ *pgstore.Store, srv *pgtest.Server) {
			if err := srv.Kill(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Restart() }) // for its Close
		}, host.ErrLeaseExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := pgtest.NewServer(t)
			url := pgtest.NewDBOn(t, srv) + "&connect_timeout=1"
			st := open(t, url, pgstore.WithLeaseExpiry(ttl), pgstore.WithTimeout(time.Second))
			if _, err := st.Create("s"); err != nil {
				t.Fatal(err)
			}
			_, l := leaser(t, st, "s")
			g, err := l.LeaseTurn()
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Err(); err != nil {
				t.Fatalf("Err of a held lease: %v, want nil", err)
			}
			tt.lose(t, url, st, srv)
			select {
			case <-g.Lost():
			case <-time.After(10 * ttl):
				t.Fatal("lease not lost")
			}
			if err := g.Err(); !errors.Is(err, tt.want) {
				t.Fatalf("Err = %v, want %v", err, tt.want)
			}
			_ = g.Release()
		})
	}
}

// TestReleasedLeaseWritesNothing: an append under a lease after its
// Release (a late write carrying a turn that ended) is refused with
// ErrFenced, although no other process was granted the lease since.
func TestReleasedLeaseWritesNothing(t *testing.T) {
	st, _, _ := twoStores(t)
	s, err := st.Create("s")
	if err != nil {
		t.Fatal(err)
	}
	_, l := leaser(t, st, "s")
	g, err := l.LeaseTurn()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Append(ev("test/late", 1)); !errors.Is(err, host.ErrFenced) {
		t.Fatalf("Append after Release: %v, want ErrFenced", err)
	}
	if _, ok, err := g.AppendIf(ev("test/late", 2), func() bool { return true }); ok || !errors.Is(err, host.ErrFenced) {
		t.Fatalf("AppendIf after Release: %v %v, want ErrFenced", ok, err)
	}
	if n := s.Len(); n != 0 {
		t.Fatalf("the log holds %d events", n)
	}
}
