package pgstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// The benchmarks compare the PostgreSQL store with the file store (one
// fsync per append, the default, and none) side by side. The server runs
// with fsync=off unless PLANMODE_PGTEST_FSYNC=1; compare fsync=on with
// fsync=on. The PostgreSQL pool has 32 connections, one per session of
// the concurrent benchmark (pgxpool's default is 4). The 100k-event cold
// open runs when PLANMODE_BENCH_BIG=1; a 1000-event one always runs.

// benchEvent is a typical small transcript event.
func benchEvent(b *testing.B) host.Event {
	data, err := json.Marshal(host.AssistantMessage{Text: "I will read the file and then summarise what the function does for you."})
	if err != nil {
		b.Fatal(err)
	}
	return host.Event{Type: host.TypeAssistantMessage, Data: data}
}

// benchStore is one store under test.
type benchStore struct {
	name string
	open func(b *testing.B) host.Store
}

func benchStores() []benchStore {
	return []benchStore{
		{"postgres", func(b *testing.B) host.Store { return open(b, pgtest.NewDB(b)+"&pool_max_conns=32") }},
		{"file-fsync=on", func(b *testing.B) host.Store { return openDir(b, store.SyncEveryAppend) }},
		{"file-fsync=off", func(b *testing.B) host.Store { return openDir(b, store.SyncNever) }},
	}
}

func openDir(b *testing.B, p store.SyncPolicy) *store.Dir {
	d, err := store.OpenDir(b.TempDir()+"/sessions", store.WithSyncPolicy(p))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = d.Close() })
	return d
}

// BenchmarkAppend measures appends per second with 1 and 8 sessions
// appended to concurrently (one goroutine each), beside the floor: a loop
// of plain INSERTs of the same rows on the same server, one goroutine per
// session.
func BenchmarkAppend(b *testing.B) {
	for _, sessions := range []int{1, 8} {
		for _, bs := range benchStores() {
			b.Run(fmt.Sprintf("sessions=%d/%s", sessions, bs.name), func(b *testing.B) {
				st := bs.open(b)
				ss := make([]host.Session, sessions)
				for i := range ss {
					s, err := st.Create("")
					if err != nil {
						b.Fatal(err)
					}
					ss[i] = s
				}
				e := benchEvent(b)
				runAppenders(b, sessions, func(i int) error {
					_, err := ss[i].Append(e)
					return err
				})
			})
		}
		b.Run(fmt.Sprintf("sessions=%d/postgres-raw-insert-floor", sessions), func(b *testing.B) {
			st := open(b, pgtest.NewDB(b)+"&pool_max_conns=32")
			ids := make([]string, sessions)
			seqs := make([]int, sessions)
			for i := range ids {
				s, err := st.Create("")
				if err != nil {
					b.Fatal(err)
				}
				ids[i] = s.ID()
			}
			e := benchEvent(b)
			ctx := context.Background()
			runAppenders(b, sessions, func(i int) error {
				seqs[i]++
				_, err := st.Pool().Exec(ctx, `INSERT INTO planmode_events (session_id, seq, type, at, at_ns, data) VALUES ($1, $2, $3, now(), 0, $4)`, ids[i], seqs[i], e.Type, string(e.Data))
				return err
			})
		})
	}
}

// runAppenders runs b.N calls of appendTo spread over sessions
// goroutines (goroutine i calls appendTo(i)) and reports appends/s.
func runAppenders(b *testing.B, sessions int, appendTo func(i int) error) {
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range sessions {
		n := b.N / sessions
		if i < b.N%sessions {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				if err := appendTo(i); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
}

// BenchmarkAppendIf measures the latency of a conditional append (one
// session, one writer).
func BenchmarkAppendIf(b *testing.B) {
	for _, bs := range benchStores() {
		b.Run(bs.name, func(b *testing.B) {
			s, err := bs.open(b).Create("")
			if err != nil {
				b.Fatal(err)
			}
			e := benchEvent(b)
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := s.AppendIf(e, func() bool { return true }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNotify measures the time from the start of an append until a
// subscriber of the session gets the event (p50 and p90 besides the
// mean): in another store (another pool and listener, as another
// process) for PostgreSQL, beside the floor (a plain INSERT, then a
// NOTIFY, received on a third connection), and in the same process for
// the file store (which cannot share a session between processes).
func BenchmarkNotify(b *testing.B) {
	b.Run("postgres-cross-process", func(b *testing.B) {
		url := pgtest.NewDB(b)
		benchNotify(b, open(b, url), open(b, url))
	})
	b.Run("postgres-insert+notify-floor", func(b *testing.B) {
		url := pgtest.NewDB(b)
		st := open(b, url)
		s, err := st.Create("")
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		w, r := connect(b, url), connect(b, url)
		if _, err := r.Exec(ctx, `LISTEN bench_floor`); err != nil {
			b.Fatal(err)
		}
		e := benchEvent(b)
		seq := 0
		latencies(b, func() {
			seq++
			if _, err := w.Exec(ctx, `INSERT INTO planmode_events (session_id, seq, type, at, at_ns, data) VALUES ($1, $2, $3, now(), 0, $4)`, s.ID(), seq, e.Type, string(e.Data)); err != nil {
				b.Fatal(err)
			}
			if _, err := w.Exec(ctx, `SELECT pg_notify('bench_floor', $1)`, s.ID()+" "+fmt.Sprint(seq)); err != nil {
				b.Fatal(err)
			}
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if _, err := r.WaitForNotification(wctx); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("file-fsync=on-in-process", func(b *testing.B) {
		d := openDir(b, store.SyncEveryAppend)
		benchNotify(b, d, d)
	})
}

func benchNotify(b *testing.B, writer, reader host.Store) {
	w, err := writer.Create("n")
	if err != nil {
		b.Fatal(err)
	}
	r, err := reader.Open("n")
	if err != nil {
		b.Fatal(err)
	}
	got := make(chan struct{}, 1)
	defer r.Subscribe(r.Len(), func(host.Event) { got <- struct{}{} })()
	e := benchEvent(b)
	latencies(b, func() {
		if _, err := w.Append(e); err != nil {
			b.Fatal(err)
		}
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			b.Fatal("no notification within 10s")
		}
	})
}

// latencies runs op b.N times and reports the p50 and p90 of its time.
func latencies(b *testing.B, op func()) {
	var ds []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		op()
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(ds[len(ds)*9/10].Microseconds()), "p90-µs")
}

// BenchmarkColdOpen measures opening a session of n events in a store
// that has not seen it (reading and validating the whole log).
func BenchmarkColdOpen(b *testing.B) {
	sizes := []int{1000}
	if os.Getenv("PLANMODE_BENCH_BIG") == "1" {
		sizes = append(sizes, 100_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("events=%d/postgres", n), func(b *testing.B) {
			url := pgtest.NewDB(b)
			st := open(b, url)
			if _, err := st.Create("big"); err != nil {
				b.Fatal(err)
			}
			fillPostgres(b, url, "big", n)
			if err := st.CloseSession("big"); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				s, err := st.Open("big")
				if err != nil || s.Len() != n {
					b.Fatalf("open: %v (len %d)", err, s.Len())
				}
				if err := st.CloseSession("big"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("events=%d/file", n), func(b *testing.B) {
			d := openDir(b, store.SyncNever)
			s, err := d.Create("big")
			if err != nil {
				b.Fatal(err)
			}
			e := benchEvent(b)
			for range n {
				if _, err := s.Append(e); err != nil {
					b.Fatal(err)
				}
			}
			if err := d.CloseSession("big"); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				s, err := d.Open("big")
				if err != nil || s.Len() != n {
					b.Fatalf("open: %v", err)
				}
				if err := d.CloseSession("big"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fillPostgres gives session id n copies of the benchmark event in one
// statement.
func fillPostgres(b *testing.B, url, id string, n int) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO planmode_events (session_id, seq, type, at, at_ns, data)
		SELECT $1, g, $3, now(), 0, $4::json FROM generate_series(1, $2::bigint) g`, id, n, host.TypeAssistantMessage, string(benchEvent(b).Data)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLease measures what the turn lease costs, on one session:
// appends without a lease and under one (the token is checked in the
// append's own row lock, so the two should match), and one whole lease
// per turn (grant and release: two statements, one round trip each),
// with the renewal running in the background, next to the advisory lock
// it was chosen over (try-lock and unlock on a connection held for the
// turn).
func BenchmarkLease(b *testing.B) {
	st := open(b, pgtest.NewDB(b))
	s, err := st.Create("")
	if err != nil {
		b.Fatal(err)
	}
	e := benchEvent(b)
	b.Run("append/unleased", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Append(e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("append/leased", func(b *testing.B) {
		g, err := s.(host.TurnLeaser).LeaseTurn()
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = g.Release() }()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := g.Append(e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("append/raw-insert-floor", func(b *testing.B) {
		// The floor: one plain INSERT per event, nothing else.
		raw, err := st.Create("")
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		seq := 0
		b.ReportAllocs()
		for b.Loop() {
			seq++
			if _, err := st.Pool().Exec(ctx, `INSERT INTO planmode_events (session_id, seq, type, at, at_ns, data) VALUES ($1, $2, $3, now(), 0, $4)`, raw.ID(), seq, e.Type, string(e.Data)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("turn/grant+release", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			g, err := s.(host.TurnLeaser).LeaseTurn()
			if err != nil {
				b.Fatal(err)
			}
			if err := g.Release(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("turn/advisory-lock+unlock", func(b *testing.B) {
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			c, err := st.Pool().Acquire(ctx)
			if err != nil {
				b.Fatal(err)
			}
			var ok bool
			if err := c.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtext($1))`, s.ID()).Scan(&ok); err != nil || !ok {
				b.Fatal(ok, err)
			}
			if _, err := c.Exec(ctx, `SELECT pg_advisory_unlock(hashtext($1))`, s.ID()); err != nil {
				b.Fatal(err)
			}
			c.Release()
		}
	})
}
