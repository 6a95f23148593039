package pgstore_test

import (
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

// stored returns events numbered from 1 with fixed times, as a log read
// from a session file holds them.
func stored(events ...host.Event) host.Log {
	base := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	for i := range events {
		if events[i].Seq == 0 {
			events[i].Seq = uint64(i) + 1
		}
		events[i].Time = base.Add(time.Duration(i) * time.Second)
	}
	return host.LogOf(events)
}

// TestImportKeepsTheLog: an imported log reads back event for event (seq,
// type, time to the nanosecond, source, data), in this store and another.
func TestImportKeepsTheLog(t *testing.T) {
	a, b, _ := twoStores(t)
	log := stored(
		host.Event{Type: host.TypeSessionCreated},
		host.Event{Type: host.TypeUserMessage, Source: &host.Source{Kind: host.SourceUser}, Data: json.RawMessage(`{"content":[{"type":"text","text":"hi"}]}`)},
		host.Event{Type: "plan/mode", Source: &host.Source{Kind: host.SourcePlugin, Plugin: "plan-mode"}, Data: json.RawMessage(`{"b":1,"a":2}`)},
	)
	if err := a.Import("moved", log, false); err != nil {
		t.Fatal(err)
	}
	for _, st := range []*pgstore.Store{a, b} {
		s, err := st.Open("moved")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.Events().Slice(), log.Slice()) {
			t.Fatalf("imported log reads back as\n%+v\nwant\n%+v", s.Events().Slice(), log.Slice())
		}
	}
	s, err := b.Open("moved")
	if err != nil {
		t.Fatal(err)
	}
	if e, err := s.Append(ev("x/after", 1)); err != nil || e.Seq != 4 {
		t.Fatalf("append after the import: %+v, %v", e, err)
	}
}

// TestImportRefusesBadInput: an event that an append would refuse is
// refused with its place in the log, and nothing of the session is left.
func TestImportRefusesBadInput(t *testing.T) {
	st := open(t, pgtest.NewDB(t))
	refuseType(t, st, "v", "x/refused", "not wanted")
	ok := host.Event{Type: "x/ok", Data: json.RawMessage(`{}`)}
	tests := []struct {
		name    string
		bad     host.Event
		seq     uint64
		wantErr error
		want    string
	}{
		{"seq gap", host.Event{Seq: 5, Type: "x/gap"}, 2, pgstore.ErrCorrupt, "seq 5, want 2"},
		{"empty type", host.Event{Type: ""}, 2, store.ErrBadEvent, "type is empty"},
		{"NUL in type", host.Event{Type: "a\x00b"}, 2, store.ErrBadEvent, "NUL"},
		{"not JSON", host.Event{Type: "x/bad", Data: json.RawMessage(`{"a":`)}, 2, store.ErrBadEvent, "data"},
		{"duplicate name", host.Event{Type: "x/dup", Data: json.RawMessage(`{"a":1,"a":2}`)}, 2, store.ErrBadEvent, "data"},
		{"refused by a validator", host.Event{Type: "x/refused"}, 2, nil, "not wanted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := st.Import("bad", stored(ok, tt.bad, ok), false)
			var ie *pgstore.ImportError
			if !errors.As(err, &ie) || ie.Seq != tt.seq {
				t.Fatalf("Import = %v, want an ImportError at event %d", err, tt.seq)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Import = %v, want %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Import = %v, want it to say %q", err, tt.want)
			}
			if _, err := st.Open("bad"); !errors.Is(err, host.ErrSessionNotFound) {
				t.Errorf("after a refused import, Open = %v, want not found", err)
			}
		})
	}
}

// TestImportOverExistingSession: an existing session is kept unless
// replace is asked; a replacement swaps the whole log.
func TestImportOverExistingSession(t *testing.T) {
	a, b, _ := twoStores(t)
	s, err := a.Create("taken")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := s.Append(ev("x/old", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.CloseSession("taken"); err != nil {
		t.Fatal(err)
	}
	log := stored(host.Event{Type: "x/new", Data: json.RawMessage(`1`)})
	if err := b.Import("taken", log, false); !errors.Is(err, host.ErrSessionExists) {
		t.Fatalf("Import over an existing session = %v, want ErrSessionExists", err)
	}
	if got, err := b.Open("taken"); err != nil || got.Len() != 3 {
		t.Fatalf("the refused import changed the session: %v", err)
	}
	if err := b.CloseSession("taken"); err != nil {
		t.Fatal(err)
	}
	if err := b.Import("taken", log, true); err != nil {
		t.Fatalf("Import with replace: %v", err)
	}
	got, err := a.Open("taken")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Events().Slice(), log.Slice()) {
		t.Fatalf("replaced log = %+v, want %+v", got.Events().Slice(), log.Slice())
	}
}

// TestLatest names the session changed last, an imported one counting as
// changed when it was imported.
func TestLatest(t *testing.T) {
	st := open(t, pgtest.NewDB(t))
	if _, err := st.Latest(); !errors.Is(err, host.ErrSessionNotFound) {
		t.Fatalf("Latest of an empty database = %v, want not found", err)
	}
	older, err := st.Create("older")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create("newer"); err != nil {
		t.Fatal(err)
	}
	if id, err := st.Latest(); err != nil || id != "newer" {
		t.Fatalf("Latest = %q, %v; want newer", id, err)
	}
	if _, err := older.Append(ev("x/later", 1)); err != nil {
		t.Fatal(err)
	}
	if id, err := st.Latest(); err != nil || id != "older" {
		t.Fatalf("after an append, Latest = %q, %v; want older", id, err)
	}
	if err := st.Import("imported", stored(host.Event{Type: "x/old"}), false); err != nil {
		t.Fatal(err)
	}
	if id, err := st.Latest(); err != nil || id != "imported" {
		t.Fatalf("after an import, Latest = %q, %v; want imported", id, err)
	}
}

// TestImportReplaceUnderALease: a replacement is refused while another
// process holds the session's turn lease, naming the holder, and nothing
// changes; once the lease is released or has expired it goes through,
// the next grant's token is above every token granted before, and the
// old holder's late append is fenced.
func TestImportReplaceUnderALease(t *testing.T) {
	const ttl = 500 * time.Millisecond
	tests := []struct {
		name string
		end  func(t *testing.T, holder *pgstore.Store, g host.TurnLease)
	}{
		{"released", func(t *testing.T, _ *pgstore.Store, g host.TurnLease) {
			if err := g.Release(); err != nil {
				t.Fatal(err)
			}
		}},
		{"expired", func(t *testing.T, holder *pgstore.Store, _ host.TurnLease) {
			// The holder pauses: its renewals stop, the lease row stays.
			_ = holder.Close()
			time.Sleep(2 * ttl)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := pgtest.NewDB(t)
			holder := open(t, url, pgstore.WithLeaseExpiry(ttl), pgstore.WithLeaseHolder("holder.example", 4242))
			importer := open(t, url, pgstore.WithLeaseExpiry(ttl))
			old := stored(host.Event{Type: "x/old"}, host.Event{Type: "x/old"})
			if err := importer.Import("s", old, false); err != nil {
				t.Fatal(err)
			}
			_, hl := leaser(t, holder, "s")
			g, err := hl.LeaseTurn()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.Append(ev("x/held", 1)); err != nil {
				t.Fatal(err)
			}
			log := stored(host.Event{Type: "x/new", Data: json.RawMessage(`1`)})
			err = importer.Import("s", log, true)
			var busy *host.BusyError
			if !errors.As(err, &busy) || busy.Holder.Host != "holder.example" || busy.Holder.PID != 4242 || busy.Holder.Since.IsZero() {
				t.Fatalf("Import -replace under a live lease = %v, want busy naming holder.example (pid 4242)", err)
			}
			if !strings.Contains(err.Error(), "busy on holder.example (pid 4242) since ") {
				t.Errorf("Import -replace under a live lease = %v, want it to name the holder", err)
			}
			other := open(t, url)
			if got, err := other.Open("s"); err != nil || got.Len() != 3 || got.Events().At(2).Type != "x/held" {
				t.Fatalf("the refused replacement changed the session: %v", err)
			}
			if live, err := pgstore.LeaseHolder(other, "s"); err != nil || !live {
				t.Fatalf("the refused replacement cleared the lease: live %v, %v", live, err)
			}

			tt.end(t, holder, g)
			if err := importer.Import("s", log, true); err != nil {
				t.Fatalf("Import -replace after the lease ended: %v", err)
			}
			// The replacement raised the fence itself: a holder whose
			// lease ran out while it was paused, still holding token
			// g.Token(), writes nothing onto the new log.
			if fence, err := pgstore.Fence(open(t, url), "s"); err != nil || fence <= g.Token() {
				t.Fatalf("fence after a replacement = %d (%v), the old holder's token %d: want larger", fence, err, g.Token())
			}
			_, nl := leaser(t, importer, "s")
			ng, err := nl.LeaseTurn()
			if err != nil {
				t.Fatal(err)
			}
			defer ng.Release()
			if tt.name == "released" {
				// The old holder, paused until now, appends late.
				if _, err := g.Append(ev("x/late", 2)); !errors.Is(err, host.ErrFenced) {
					t.Fatalf("the old holder's append after a replacement = %v, want ErrFenced", err)
				}
			}
			if ng.Token() <= g.Token() {
				t.Fatalf("token %d after a replacement, the old holder's was %d: want larger", ng.Token(), g.Token())
			}
			got, err := open(t, url).Open("s")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Events().Slice(), log.Slice()) {
				t.Fatalf("replaced log = %+v, want %+v", got.Events().Slice(), log.Slice())
			}
		})
	}
}
