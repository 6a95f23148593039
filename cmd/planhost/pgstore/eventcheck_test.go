package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// badData are payloads that no store keeps: each breaks one rule of the
// check every store makes.
var badData = []struct {
	name string
	data string
}{
	{"duplicate key", `{"active":true,"active":false}`},
	{"nested duplicate key", `{"x":{"a":1,"a":2}}`},
	{"duplicate key spelled with an escape", `{"a":1,"\u0061":2}`},
	{"half a surrogate pair", `{"t":"\ud800"}`},
	{"invalid UTF-8", "{\"t\":\"\xff\"}"},
	{"nested too deep", strings.Repeat("[", store.MaxDataDepth+1) + strings.Repeat("]", store.MaxDataDepth+1)},
	{"not JSON", `{"a":`},
	{"two values", `1 2`},
}

// TestAppendRefusesWhatNoStoreKeeps: PostgreSQL's json type takes
// duplicate keys and any nesting, but the store refuses what the file
// store refuses, and commits nothing of it.
func TestAppendRefusesWhatNoStoreKeeps(t *testing.T) {
	url := pgtest.NewDB(t)
	st := open(t, url)
	s, err := st.Create("s")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range badData {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Append(host.Event{Type: "test/bad", Data: json.RawMessage(tt.data)})
			if !errors.Is(err, store.ErrBadEvent) {
				t.Fatalf("Append = %v, want ErrBadEvent", err)
			}
		})
	}
	other := open(t, url)
	o, err := other.Open("s")
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 0 || o.Len() != 0 {
		t.Fatalf("refused events were kept: %d here, %d in the database", s.Len(), o.Len())
	}
}

// TestForeignMalformedEventIsRefused: another writer commits, straight
// into the table, an event that the checks of an append refuse. A session
// that is open refuses it when it catches up (it is neither delivered nor
// followed by an append), a new open fails naming the event and saying
// how to repair, and once the row is removed the session opens with every
// event it had: nothing stored is lost.
func TestForeignMalformedEventIsRefused(t *testing.T) {
	tests := []struct {
		name, typ, data string
		want            string
	}{
		{"malformed plan/mode", planmode.EventPlanMode, `{"active":"yes"}`, `event 3 "plan/mode": validator`},
		{"plan/mode with a duplicate key", planmode.EventPlanMode, `{"active":true,"active":false}`, `event 3 "plan/mode": data: jsontext: duplicate object member name "active"`},
		{"nested duplicate key", "test/x", `{"x":{"a":1,"a":2}}`, `event 3 "test/x": data: jsontext: duplicate object member name "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := pgtest.NewDB(t)
			a := open(t, url, pgstore.WithPollInterval(time.Hour))
			if _, err := a.AddValidator(planmode.PluginName, planmode.CheckPayload); err != nil {
				t.Fatal(err)
			}
			s, err := a.Create("s")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range []host.Event{ev("test/x", 1), {Type: planmode.EventPlanMode, Data: json.RawMessage(`{"active":true}`)}} {
				if _, err := s.Append(e); err != nil {
					t.Fatal(err)
				}
			}
			want := s.Events().Slice()
			rec := newRecorder()
			defer s.Subscribe(0, rec.add)()

			ctx := context.Background()
			conn := connect(t, url)
			if _, err := conn.Exec(ctx, `INSERT INTO planmode_events (session_id, seq, type, at, at_ns, data)
				VALUES ('s', 3, $1, now(), 0, $2::json)`, tt.typ, tt.data); err != nil {
				t.Fatal(err)
			}

			// The open session refuses it at catch-up: no append past it.
			_, err = s.Append(ev("test/x", 4))
			wantRefusal(t, "Append", err, tt.want)
			if err := s.(host.Refresher).Refresh(); err == nil {
				t.Fatal("Refresh took the malformed event")
			}
			if got := s.Events().Slice(); len(got) != 2 || len(rec.got()) != 2 {
				t.Fatalf("the session took the malformed event: log %d events, delivered %d", len(got), len(rec.got()))
			}

			// A new open names it and says how to repair.
			b := open(t, url)
			if _, err := b.AddValidator(planmode.PluginName, planmode.CheckPayload); err != nil {
				t.Fatal(err)
			}
			_, err = b.Open("s")
			wantRefusal(t, "Open", err, tt.want)

			// Once the row is gone, every event before it is there.
			if _, err := conn.Exec(ctx, `DELETE FROM planmode_events WHERE session_id = 's' AND seq = 3`); err != nil {
				t.Fatal(err)
			}
			s2, err := b.Open("s")
			if err != nil {
				t.Fatalf("Open after the repair: %v", err)
			}
			if got := s2.Events().Slice(); len(got) != len(want) || got[1].Seq != 2 || string(got[1].Data) != string(want[1].Data) {
				t.Fatalf("after the repair the session holds %+v, want %+v", got, want)
			}
			if _, err := s.Append(ev("test/x", 3)); err != nil {
				t.Fatalf("Append after the repair: %v", err)
			}
		})
	}
}

// wantRefusal checks that err refuses the malformed event, naming it and
// the repair.
func wantRefusal(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s took the malformed event", what)
	}
	for _, s := range []string{want, "correct or delete the row", `seq 3`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%s error %q does not say %q", what, err, s)
		}
	}
}
