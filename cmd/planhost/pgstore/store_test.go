package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

func TestEventsReadBackExactly(t *testing.T) {
	url := pgtest.NewDB(t)
	a := open(t, url)
	s, err := a.Create("exact")
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", 3600))
	in := []host.Event{
		{Type: host.TypeSessionCreated},
		{Type: host.TypeUserMessage, Source: &host.Source{Kind: host.SourceUser}, Data: json.RawMessage(` { "content" : [ {"type":"text","text":"hi \u00e9 \\u0000"} ] } `)},
		{Type: "plan/mode", Time: when, Source: &host.Source{Kind: host.SourcePlugin, Plugin: "plan-mode", Form: "notice"}, Data: json.RawMessage(`{"b":1,"a":2}`)},
		{Type: "x/old", Time: time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)},
	}
	var appended []host.Event
	for _, e := range in {
		got, err := s.Append(e)
		if err != nil {
			t.Fatal(err)
		}
		appended = append(appended, got)
	}
	if got := appended[1].Data; string(got) != `{"content":[{"type":"text","text":"hi \u00e9 \\u0000"}]}` {
		t.Errorf("data not compacted: %s", got)
	}
	if !appended[2].Time.Equal(when) || appended[2].Time.Location() != time.UTC {
		t.Errorf("time %v, want %v in UTC", appended[2].Time, when)
	}
	if !reflect.DeepEqual(s.Events().Slice(), appended) {
		t.Errorf("Events() differs from what Append returned")
	}
	b := open(t, url)
	s2, err := b.Open("exact")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s2.Events().Slice(), appended) {
		t.Errorf("reopened log differs:\n got %+v\nwant %+v", s2.Events().Slice(), appended)
	}
}

func TestCreateOpenErrors(t *testing.T) {
	a, b, _ := twoStores(t)
	if _, err := a.Create("taken"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"create taken in this store", func() error { _, err := a.Create("taken"); return err }, host.ErrSessionExists},
		{"create taken in another store", func() error { _, err := b.Create("taken"); return err }, host.ErrSessionExists},
		{"open unknown", func() error { _, err := b.Open("nobody"); return err }, host.ErrSessionNotFound},
		{"create bad id", func() error { _, err := a.Create("../x"); return err }, host.ErrBadSessionID},
		{"open bad id", func() error { _, err := a.Open("-x"); return err }, host.ErrBadSessionID},
		{"append NUL type", func() error {
			s, _ := a.Open("taken")
			_, err := s.Append(host.Event{Type: "a\x00b"})
			return err
		}, store.ErrBadEvent},
		{"append bad JSON", func() error {
			s, _ := a.Open("taken")
			_, err := s.Append(host.Event{Type: "x", Data: json.RawMessage(`{`)})
			return err
		}, store.ErrBadEvent},
		{"fork past end", func() error {
			s, _ := a.Open("taken")
			_, err := s.Fork(s.Len() + 1)
			return err
		}, host.ErrBadFork},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
		})
	}
	s, _ := a.Open("taken")
	if s.Len() != 0 {
		t.Fatalf("rejected appends left %d events", s.Len())
	}
}

func TestRejectedAppendLeavesNothing(t *testing.T) {
	a, b, _ := twoStores(t)
	refuseType(t, a, "no-bad", "bad", "type bad")
	s, _ := a.Create("v")
	if _, err := s.Append(ev("ok", 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ev("bad", 2)); err == nil || !strings.Contains(err.Error(), `validator "no-bad"`) {
		t.Fatalf("error %v, want the validator's", err)
	}
	e, err := s.Append(ev("ok", 3))
	if err != nil || e.Seq != 2 {
		t.Fatalf("append after rejection: %+v, %v; want seq 2", e, err)
	}
	s2, err := b.Open("v")
	if err != nil {
		t.Fatal(err)
	}
	checkSeqs(t, s2.Events().Slice())
	if s2.Len() != 2 {
		t.Fatalf("other store sees %d events, want 2", s2.Len())
	}
	// A validator of the opening store runs on the stored events.
	refuseType(t, b, "no-ok", "ok", "type ok")
	if _, err := b.Open("v"); err == nil || !strings.Contains(err.Error(), `event 1 "ok"`) {
		t.Fatalf("open error %v, want one naming event 1", err)
	}
}

func TestForkCopiesPrefix(t *testing.T) {
	a, b, _ := twoStores(t)
	s, _ := a.Create("parent")
	for i := range 5 {
		if _, err := s.Append(ev("x", i)); err != nil {
			t.Fatal(err)
		}
	}
	f, err := s.Fork(3)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Events().Slice(), s.Events().Slice()[:3]) {
		t.Fatalf("fork holds %+v", f.Events().Slice())
	}
	if e, err := f.Append(ev("y", 9)); err != nil || e.Seq != 4 {
		t.Fatalf("append to fork: %+v, %v", e, err)
	}
	f2, err := b.Open(f.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f2.Events().Slice(), f.Events().Slice()) {
		t.Fatalf("other store reads fork as %+v", f2.Events().Slice())
	}
	if s.Len() != 5 {
		t.Fatalf("parent changed to %d events", s.Len())
	}
}

func TestMigrations(t *testing.T) {
	url := pgtest.NewDB(t)
	ctx := context.Background()
	// Two stores starting together apply the schema once.
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			st, err := pgstore.Open(ctx, url)
			if err == nil {
				err = st.Close()
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	conn := connect(t, url)
	var n, v int
	if err := conn.QueryRow(ctx, `SELECT count(*), max(version) FROM planmode_migrations`).Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	if n != pgstore.SchemaVersion() || v != pgstore.SchemaVersion() {
		t.Fatalf("%d migrations recorded up to %d, want %d", n, v, pgstore.SchemaVersion())
	}
	if _, err := conn.Exec(ctx, `INSERT INTO planmode_migrations (version, name) VALUES ($1, 'future')`, pgstore.SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	if _, err := pgstore.Open(ctx, url); !errors.Is(err, pgstore.ErrSchemaTooNew) {
		t.Fatalf("open of a newer schema: %v, want ErrSchemaTooNew", err)
	}
}

func TestErrorsHideThePassword(t *testing.T) {
	const pw = "s3cr3t-pw"
	srv := pgtest.Shared(t)
	tests := []struct{ name, url string }{
		{"bad port", "postgres://u:" + pw + "@localhost:notaport/db"},
		{"unreachable", "postgres://u:" + pw + "@/db?host=" + srv.SocketDir() + "/missing&connect_timeout=2"},
		{"keyword form", "user=u password=" + pw + " host=" + srv.SocketDir() + "/missing dbname=db connect_timeout=2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pgstore.Open(context.Background(), tt.url, pgstore.WithTimeout(5*time.Second))
			if err == nil {
				t.Fatal("open succeeded")
			}
			if strings.Contains(err.Error(), pw) {
				t.Fatalf("error shows the password: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "pgstore: ") {
				t.Fatalf("error %q does not name the store", err)
			}
		})
	}
}

func TestBadOptions(t *testing.T) {
	for _, opt := range []pgstore.Option{pgstore.WithTimeout(0), pgstore.WithPollInterval(-time.Second)} {
		if _, err := pgstore.Open(context.Background(), "postgres:///x", opt); !errors.Is(err, pgstore.ErrBadOption) {
			t.Errorf("error %v, want ErrBadOption", err)
		}
	}
}

func TestClosedStore(t *testing.T) {
	url := pgtest.NewDB(t)
	st := open(t, url)
	s, _ := st.Create("c")
	syncer := s.(interface{ Sync() error })
	if err := syncer.Sync(); err != nil {
		t.Fatalf("Sync of an open session: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syncer.Sync(); !errors.Is(err, host.ErrClosed) {
		t.Errorf("Sync after close: %v", err)
	}
	if _, err := s.Append(ev("x", 1)); !errors.Is(err, host.ErrClosed) {
		t.Errorf("append after close: %v", err)
	}
	if _, err := st.Create("d"); !errors.Is(err, host.ErrClosed) {
		t.Errorf("create after close: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

// TestAppendRefusesShorterDatabase: when the database holds fewer events
// than the process saw committed (rows deleted, an older backup), an
// append fails instead of forking the log.
func TestAppendRefusesShorterDatabase(t *testing.T) {
	url := pgtest.NewDB(t)
	st := open(t, url)
	s, _ := st.Create("s")
	for i := range 3 {
		if _, err := s.Append(ev("x", i)); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	conn := connect(t, url)
	if _, err := conn.Exec(ctx, `DELETE FROM planmode_events WHERE session_id = 's' AND seq = 3`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ev("x", 9)); !errors.Is(err, pgstore.ErrCorrupt) {
		t.Fatalf("append on a shorter database: %v, want ErrCorrupt", err)
	}
	if s.Len() != 3 {
		t.Fatalf("local log changed to %d events", s.Len())
	}
}

// TestAfterCloseRunsOnClose: the session tells plugins when it closes,
// whether by CloseSession or by the store's Close, and at once when it
// already is closed.
func TestAfterCloseRunsOnClose(t *testing.T) {
	url := pgtest.NewDB(t)
	st := open(t, url)
	a, _ := st.Create("a")
	b, _ := st.Create("b")
	ran := make(chan string, 4)
	notify := func(s host.Session) func() bool {
		return s.(host.SessionCloseNotifier).AfterClose(func() { ran <- s.ID() })
	}
	notify(a)
	stopB := notify(b)
	if err := st.CloseSession("a"); err != nil {
		t.Fatal(err)
	}
	if got := <-ran; got != "a" {
		t.Fatalf("ran for %q, want a", got)
	}
	notify(a) // already closed: runs at once
	if got := <-ran; got != "a" {
		t.Fatalf("ran for %q, want a", got)
	}
	if !stopB() {
		t.Fatal("stop did not keep b's func from running")
	}
	notify(b)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if got := <-ran; got != "b" {
		t.Fatalf("ran for %q, want b", got)
	}
	select {
	case got := <-ran:
		t.Fatalf("an extra run for %q", got)
	case <-time.After(50 * time.Millisecond):
	}
}
