package pgstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	neturl "net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
)

// asReader returns url for a role of its own that may use the store's
// tables in url's schema, and a func that takes that role's right to read
// the events: a store opened as it then learns of other processes' events
// from their notifications alone.
func asReader(t *testing.T, url string) (string, func()) {
	t.Helper()
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	schema := pgx.Identifier{q.Get("search_path")}.Sanitize()
	ctx := context.Background()
	conn := connect(t, url)
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	exec(`DO $$ BEGIN CREATE ROLE pgstore_reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`)
	exec(`GRANT ALL ON SCHEMA ` + schema + ` TO pgstore_reader`)
	exec(`GRANT ALL ON ALL TABLES IN SCHEMA ` + schema + ` TO pgstore_reader`)
	q.Set("user", "pgstore_reader")
	u.RawQuery = q.Encode()
	return u.String(), func() { exec(`REVOKE SELECT ON ` + schema + `.planmode_events FROM pgstore_reader`) }
}

// TestNoticeCarriesEvents: another process's subscriber gets the appended
// events from the notifications alone, without reading the table, byte
// for byte as appended, under a turn lease too.
func TestNoticeCarriesEvents(t *testing.T) {
	url := pgtest.NewDB(t)
	a := open(t, url, pgstore.WithPollInterval(time.Hour))
	sa, err := a.Create("s")
	if err != nil {
		t.Fatal(err)
	}
	readerURL, revoke := asReader(t, url)
	b := open(t, readerURL, pgstore.WithPollInterval(time.Hour))
	_, rec := follow(t, b, "s")
	for i := range 40 {
		e := host.Event{Type: "x", Data: json.RawMessage(fmt.Sprintf(`{"n":%d,"html":"<a & b>","u":"\u2028 é"}`, i))}
		if _, err := sa.Append(e); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			// B has the first event (by its listener: it was opened
			// before), so it listens; from now on it cannot read the table.
			rec.waitLen(t, 1, 10*time.Second)
			revoke()
		}
	}
	g, err := sa.(host.TurnLeaser).LeaseTurn()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := g.Append(ev("leased", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Release(); err != nil {
		t.Fatal(err)
	}
	got := rec.waitLen(t, 50, 10*time.Second)
	checkSeqs(t, got)
	if !reflect.DeepEqual(got, sa.Events().Slice()) {
		t.Fatalf("B delivered other events than A appended:\n%+v\n%+v", got[0], sa.Events().At(0))
	}
}

// TestNoticeWithoutEvents: a store told not to carry events in its
// notifications sends only the length; the other process reads the table.
func TestNoticeWithoutEvents(t *testing.T) {
	url := pgtest.NewDB(t)
	a := open(t, url, pgstore.WithPollInterval(time.Hour), pgstore.WithNotifyEvents(false))
	b := open(t, url, pgstore.WithPollInterval(time.Hour))
	sa, _ := a.Create("s")
	_, rec := follow(t, b, "s")
	ctx := context.Background()
	conn := listen(t, url)
	if _, err := sa.Append(ev("x", 1)); err != nil {
		t.Fatal(err)
	}
	got := rec.waitLen(t, 1, 10*time.Second)
	if !reflect.DeepEqual(got, sa.Events().Slice()) {
		t.Fatal("B delivered other events than A appended")
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n, err := conn.WaitForNotification(wctx)
	if err != nil {
		t.Fatal(err)
	}
	if n.Payload != "s 1" {
		t.Fatalf("notification %q, want only the session and its length", n.Payload)
	}
}

// TestNoticeTooLargeReadsBack: an event too large for a notification
// (PostgreSQL refuses payloads of 8000 bytes and more) reaches the other
// process by reading the table; small events around it still arrive, each
// once and in order.
func TestNoticeTooLargeReadsBack(t *testing.T) {
	a, b, _ := twoStores(t, pgstore.WithPollInterval(time.Hour))
	sa, _ := a.Create("s")
	_, rec := follow(t, b, "s")
	big := host.Event{Type: "big", Data: json.RawMessage(`{"text":"` + strings.Repeat("y", 9000) + `"}`)}
	for i, e := range []host.Event{ev("x", 1), big, ev("x", 2), ev("x", 3)} {
		if _, err := sa.Append(e); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	got := rec.waitLen(t, 4, 10*time.Second)
	checkSeqs(t, got)
	if !reflect.DeepEqual(got, sa.Events().Slice()) {
		t.Fatal("B delivered other events than A appended")
	}
}

// TestNoticeRefused: a notification is outside input (any client of the
// database can send one): events in it that do not parse, fail the
// checks of a stored event or a validator, or do not continue the log
// are refused, and the row in the table is read and delivered instead.
func TestNoticeRefused(t *testing.T) {
	valid := func(typ, data string) string {
		return fmt.Sprintf(`{"seq":2,"type":"%s","time":"2026-01-01T00:00:00Z","data":%s}`, typ, data)
	}
	tests := []struct {
		name   string
		events string
	}{
		{"not JSON", `[{"seq":2,`},
		{"not an array", valid("x", `{"forged":true}`)},
		{"empty type", `[` + valid("", `{"forged":true}`) + `]`},
		{"NUL in type", `[` + valid(`x\u0000y`, `{"forged":true}`) + `]`},
		{"duplicate names in data", `[` + valid("x", `{"a":1,"a":2}`) + `]`},
		{"year outside 0..9999", `[{"seq":2,"type":"x","time":"-0001-01-01T00:00:00Z","data":{}}]`},
		{"seq past the length", `[{"seq":3,"type":"x","time":"2026-01-01T00:00:00Z"}]`},
		{"seqs not counting up", `[` + valid("x", `{}`) + `,` + valid("x", `{}`) + `]`},
		{"refused by a validator", `[` + valid("forbidden", `{"forged":true}`) + `]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := pgtest.NewDB(t)
			st := open(t, url, pgstore.WithPollInterval(time.Hour))
			refuseType(t, st, "no-forbidden", "forbidden", "forbidden")
			s, _ := st.Create("s")
			if _, err := s.Append(ev("x", 1)); err != nil {
				t.Fatal(err)
			}
			rec := newRecorder()
			defer s.Subscribe(0, rec.add)()
			// Another writer commits event 2 with no notification; a forged
			// notification then claims different content for it.
			ctx := context.Background()
			conn := connect(t, url)
			if _, err := conn.Exec(ctx, `INSERT INTO planmode_events (session_id, seq, type, at, at_ns, data) VALUES ('s', 2, 'x', now(), 0, '{"row":true}')`); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, `SELECT pg_notify('planmode_events', $1)`, "s 2\n"+tt.events); err != nil {
				t.Fatal(err)
			}
			got := rec.waitLen(t, 2, 10*time.Second)
			if got[1].Type != "x" || string(got[1].Data) != `{"row":true}` {
				t.Fatalf("delivered %s %s, want the row x {\"row\":true}", got[1].Type, got[1].Data)
			}
			time.Sleep(50 * time.Millisecond)
			if n := len(rec.got()); n != 2 {
				t.Fatalf("%d events delivered, want 2", n)
			}
		})
	}
}

// TestNoticeRoundTrip: what a payload carries decodes to the events
// encoded, as many as fit in a notification, and the length.
func TestNoticeRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 678901234, time.UTC)
	small := host.Event{Seq: 7, Type: "x", Time: at, Data: json.RawMessage(`{"t":"<&> \u2028"}`), Source: &host.Source{Kind: host.SourcePlugin, Plugin: "p"}}
	gapped := host.Event{Seq: 9, Type: "x", Time: at}
	big := host.Event{Seq: 8, Type: "x", Time: at, Data: json.RawMessage(`"` + strings.Repeat("z", 7990) + `"`)}
	tests := []struct {
		name   string
		events []host.Event
		want   int
	}{
		{"none", nil, 0},
		{"one", []host.Event{small}, 1},
		{"too large", []host.Event{big}, 0},
		{"the first that fit", []host.Event{small, big}, 1},
		{"up to a gap", []host.Event{small, gapped}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, used := pgstore.EncodeNotice("sess", 9, tt.events)
			if len(p) >= 8000 || used != tt.want {
				t.Fatalf("payload of %d bytes", len(p))
			}
			id, n, got, ok, err := pgstore.DecodeNotice(p)
			wantN := int64(9)
			if tt.want > 0 && tt.want < len(tt.events) {
				wantN = int64(tt.events[tt.want-1].Seq)
			}
			if !ok || err != nil || id != "sess" || n != wantN {
				t.Fatalf("decode: %q %d %v %v", id, n, ok, err)
			}
			if len(got) != tt.want || tt.want > 0 && !reflect.DeepEqual(got, tt.events[:tt.want]) {
				t.Fatalf("decoded %+v, want the first %d of %+v", got, tt.want, tt.events)
			}
		})
	}
}

// FuzzDecodeNotice: a notification payload is outside input; decoding
// never panics, and the events it accepts count up by one to at most the
// length and re-encode to the same events.
func FuzzDecodeNotice(f *testing.F) {
	f.Add("s 1")
	f.Add(`s 2` + "\n" + `[{"seq":2,"type":"x","time":"2026-01-01T00:00:00Z","data":{"a":1}}]`)
	f.Add(`s 1` + "\n" + `[{"seq":1,"type":"x","time":"2026-01-01T00:00:00Z","source":{"kind":"plugin"}}]`)
	f.Add("s 1\n[")
	f.Add("\n")
	f.Fuzz(func(t *testing.T, p string) {
		id, n, events, ok, err := pgstore.DecodeNotice(p)
		if !ok || err != nil {
			return
		}
		for i, e := range events {
			if e.Seq == 0 || int64(e.Seq) > n || i > 0 && e.Seq != events[i-1].Seq+1 {
				t.Fatalf("accepted seq %d at %d of length %d", e.Seq, i, n)
			}
		}
		payload, _ := pgstore.EncodeNotice(id, n, events)
		_, _, again, ok, err := pgstore.DecodeNotice(payload)
		if !ok || err != nil {
			t.Fatalf("re-encoded payload refused: %v", err)
		}
		if len(again) > len(events) || len(again) > 0 && !reflect.DeepEqual(again, events[:len(again)]) {
			t.Fatalf("re-encoded %+v as %+v", events, again)
		}
	})
}

// TestNoticeBatchesAppendsUnderWay: appends made while others of the same
// process are under way are announced together, and every session's last
// length is announced, also for the appends made just before Close.
func TestNoticeBatchesAppendsUnderWay(t *testing.T) {
	url := pgtest.NewDB(t)
	ctx := context.Background()
	conn := listen(t, url)
	st, err := pgstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	const sessions, each = 4, 50
	ids := make([]string, sessions)
	done := make(chan error, sessions)
	for i := range ids {
		s, err := st.Create("")
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = s.ID()
		go func() {
			for k := range each {
				if _, err := s.Append(ev("tick", k)); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range sessions {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	announced := map[string]int64{}
	notifications := 0
	for len(announced) < sessions || slices.ContainsFunc(ids, func(id string) bool { return announced[id] < each }) {
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		if err != nil {
			t.Fatalf("after %d notifications, announced %v: %v", notifications, announced, err)
		}
		notifications++
		id, length, _, ok, err := pgstore.DecodeNotice(n.Payload)
		if !ok || err != nil {
			t.Fatalf("notification %q: %v", n.Payload, err)
		}
		announced[id] = max(announced[id], length)
	}
	t.Logf("%d appends, %d notifications", sessions*each, notifications)
	if appends := sessions * each; notifications > appends/2 {
		t.Errorf("%d appends under way together were announced in %d notifications, want at most %d", appends, notifications, appends/2)
	}
}
