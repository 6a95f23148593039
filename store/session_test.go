package store_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

func TestAppendAssignsSeqAndTime(t *testing.T) {
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, _ := k.open(t)
			s := mustCreate(t, st, "")
			if err := store.ValidateID(s.ID()); err != nil {
				t.Fatalf("fresh id: %v", err)
			}
			before := time.Now()
			got := mustAppend(t, s, host.Event{Type: host.TypeTurnStart, Seq: 99})
			if got.Seq != 1 {
				t.Errorf("Seq = %d, want 1 (caller's value ignored)", got.Seq)
			}
			if got.Time.Before(before.Add(-time.Second)) || got.Time.Location() != time.UTC {
				t.Errorf("Time = %v, want about now in UTC", got.Time)
			}
			given := time.Date(2024, 5, 6, 7, 8, 9, 10, time.FixedZone("X", 3600))
			got2 := mustAppend(t, s, host.Event{Type: host.TypeTurnEnd, Time: given})
			if got2.Seq != 2 || !got2.Time.Equal(given) || got2.Time.Location() != time.UTC {
				t.Errorf("second event = seq %d time %v, want seq 2 time %v in UTC", got2.Seq, got2.Time, given)
			}
			wantEvents(t, s.Events().Slice(), []host.Event{got, got2})
			if s.Len() != 2 {
				t.Errorf("Len = %d, want 2", s.Len())
			}
		})
	}
}

func TestAppendKeepsCanonicalForm(t *testing.T) {
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, _ := k.open(t)
			s := mustCreate(t, st, "canon")
			data := []byte(`{ "a" : [1, 2], "s": "x y <&>" }`)
			src := &host.Source{Kind: host.SourcePlugin, Plugin: "p", Form: "notice"}
			got := mustAppend(t, s, host.Event{Type: "t/x", Source: src, Data: data})
			if want := `{"a":[1,2],"s":"x y <&>"}`; string(got.Data) != want {
				t.Errorf("Data = %s, want %s", got.Data, want)
			}
			// The log shares no memory with the caller.
			src.Plugin = "changed"
			copy(data, "XXXX")
			if e := s.Events().Slice()[0]; e.Source.Plugin != "p" || string(e.Data) != `{"a":[1,2],"s":"x y <&>"}` {
				t.Errorf("stored event changed with the caller's buffers: %s", fmtEvents(s.Events().Slice()))
			}
			empty := mustAppend(t, s, host.Event{Type: "t/empty", Data: json.RawMessage{}})
			if empty.Data != nil {
				t.Errorf("empty Data = %#v, want nil", empty.Data)
			}
		})
	}
}

func TestAppendRejectsBadEvents(t *testing.T) {
	tests := []struct {
		name string
		give host.Event
	}{
		{"empty type", host.Event{}},
		{"type not UTF-8", host.Event{Type: "a\xffb"}},
		{"source not UTF-8", host.Event{Type: "t", Source: &host.Source{Kind: host.SourcePlugin, Plugin: "\xc3"}}},
		{"data not JSON", host.Event{Type: "t", Data: json.RawMessage(`{"a":`)}},
		{"data two values", host.Event{Type: "t", Data: json.RawMessage(`1 2`)}},
		{"year after 9999", host.Event{Type: "t", Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"year before 0", host.Event{Type: "t", Time: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}},
	}
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, _ := k.open(t)
			s := mustCreate(t, st, "bad")
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					_, err := s.Append(tt.give)
					wantErrIs(t, err, store.ErrBadEvent)
					if s.Len() != 0 {
						t.Fatalf("Len = %d after a rejected append, want 0", s.Len())
					}
				})
			}
			// Nothing was half-committed: the next event still gets seq 1.
			if got := mustAppend(t, s, host.Event{Type: "t"}); got.Seq != 1 {
				t.Errorf("Seq = %d, want 1", got.Seq)
			}
		})
	}
}

var errOdd = errors.New("odd turn")

// oddTurnValidator rejects "turn/start" events whose turn is odd.
func oddTurnValidator(e host.Event) error {
	if e.Type != host.TypeTurnStart {
		return nil
	}
	var ts host.TurnStart
	if err := json.Unmarshal(e.Data, &ts); err != nil {
		return err
	}
	if ts.Turn%2 == 1 {
		return fmt.Errorf("turn %d: %w", ts.Turn, errOdd)
	}
	return nil
}

func TestValidatorsOnAppend(t *testing.T) {
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, _ := k.open(t)
			var seen []host.Event
			unSeen, err := st.AddValidator("seen", func(e host.Event) error { seen = append(seen, e); return nil })
			if err != nil {
				t.Fatal(err)
			}
			defer unSeen()
			unregister, err := st.AddValidator("odd", oddTurnValidator)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.AddValidator("odd", oddTurnValidator); !errors.Is(err, host.ErrDuplicate) {
				t.Fatalf("second AddValidator(odd) = %v, want ErrDuplicate", err)
			}
			s := mustCreate(t, st, "v")
			ok := mustAppend(t, s, ev(t, host.TypeTurnStart, host.TurnStart{Turn: 2}))
			_, err = s.Append(ev(t, host.TypeTurnStart, host.TurnStart{Turn: 3}))
			wantErrIs(t, err, errOdd)
			if !strings.Contains(err.Error(), `validator "odd"`) || !strings.Contains(err.Error(), `event 2 "turn/start"`) {
				t.Errorf("error %q does not name the validator and the event", err)
			}
			if s.Len() != 1 {
				t.Fatalf("Len = %d after a rejected append, want 1", s.Len())
			}
			// Validators see the event as stored: with Seq and Time set.
			if len(seen) != 2 || seen[0].Seq != 1 || seen[0].Time.IsZero() || !seen[0].Time.Equal(ok.Time) {
				t.Errorf("validator saw %s, want seq and time set", fmtEvents(seen))
			}
			unregister()
			unregister() // idempotent
			mustAppend(t, s, ev(t, host.TypeTurnStart, host.TurnStart{Turn: 3}))
			if _, err := st.AddValidator("odd", oddTurnValidator); err != nil {
				t.Errorf("AddValidator after unregister: %v", err)
			}
			if _, err := st.AddValidator("nil", nil); err == nil {
				t.Error("AddValidator(nil func) succeeded")
			}
		})
	}
}

func TestValidatorsOnOpen(t *testing.T) {
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, reopen := k.open(t)
			s := mustCreate(t, st, "vo")
			mustAppend(t, s, ev(t, host.TypeTurnStart, host.TurnStart{Turn: 2}))
			mustAppend(t, s, ev(t, host.TypeTurnStart, host.TurnStart{Turn: 3}))
			if reopen != nil {
				st = reopen(t)
			}
			unregister, err := st.AddValidator("odd", oddTurnValidator)
			if err != nil {
				t.Fatal(err)
			}
			_, err = st.Open("vo")
			wantErrIs(t, err, errOdd)
			if !strings.Contains(err.Error(), `event 2 "turn/start"`) {
				t.Errorf("error %q does not name the event", err)
			}
			if d, ok := st.(*store.Dir); ok && !strings.Contains(err.Error(), d.Path("vo")+":2: ") {
				t.Errorf("error %q does not name the file and line", err)
			}
			unregister()
			if s := mustOpen(t, st, "vo"); s.Len() != 2 {
				t.Errorf("Len = %d, want 2", s.Len())
			}
			// An open session is checked again by the next Open.
			if _, err := st.AddValidator("odd", oddTurnValidator); err != nil {
				t.Fatal(err)
			}
			_, err = st.Open("vo")
			wantErrIs(t, err, errOdd)
		})
	}
}

func TestAppendIf(t *testing.T) {
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, _ := k.open(t)
			s := mustCreate(t, st, "cond")
			mustAppend(t, s, host.Event{Type: host.TypeTurnStart})
			var lenInCond int
			_, ok, err := s.AppendIf(host.Event{Type: "plan/mode"}, func() bool {
				lenInCond = len(s.Events().Slice())
				return false
			})
			if err != nil || ok {
				t.Fatalf("AppendIf(false) = %v, %v; want false, nil", ok, err)
			}
			if s.Len() != 1 || lenInCond != 1 {
				t.Fatalf("Len = %d, len seen by cond = %d; want 1, 1", s.Len(), lenInCond)
			}
			got, ok, err := s.AppendIf(host.Event{Type: "plan/mode"}, func() bool { return true })
			if err != nil || !ok || got.Seq != 2 {
				t.Fatalf("AppendIf(true) = %+v, %v, %v; want seq 2, true, nil", got, ok, err)
			}
			_, ok, err = s.AppendIf(host.Event{}, func() bool { return true })
			if ok || !errors.Is(err, store.ErrBadEvent) {
				t.Fatalf("AppendIf(bad event) = %v, %v; want false, ErrBadEvent", ok, err)
			}
		})
	}
}

func TestSubscribeReplaysFrom(t *testing.T) {
	tests := []struct {
		name     string
		giveFrom int
		wantSeqs []uint64 // 3 events in the log, then 2 appended
	}{
		{"from zero folds the whole log", 0, []uint64{1, 2, 3, 4, 5}},
		{"negative from is zero", -4, []uint64{1, 2, 3, 4, 5}},
		{"from the middle replays the rest", 2, []uint64{3, 4, 5}},
		{"from Len sees only new events", 3, []uint64{4, 5}},
		{"from past the end sees only new events", 10, []uint64{4, 5}},
	}
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, _ := k.open(t)
			for i, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					s := mustCreate(t, st, fmt.Sprintf("sub%d", i))
					appendN(t, s, 3)
					var got []uint64
					unsubscribe := s.Subscribe(tt.giveFrom, func(e host.Event) { got = append(got, e.Seq) })
					appendN(t, s, 2)
					unsubscribe()
					unsubscribe() // idempotent
					appendN(t, s, 1)
					if fmt.Sprint(got) != fmt.Sprint(tt.wantSeqs) {
						t.Errorf("subscriber saw %v, want %v", got, tt.wantSeqs)
					}
				})
			}
		})
	}
}

func TestEventsSnapshotIsStable(t *testing.T) {
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, _ := k.open(t)
			s := mustCreate(t, st, "snap")
			appendN(t, s, 3)
			snap := s.Events().Slice()
			want := append([]host.Event(nil), snap...)
			appendN(t, s, 100)
			wantEvents(t, snap, want)
			if cap(snap) != len(snap) {
				t.Errorf("snapshot cap %d > len %d: an append to it could write into the log", cap(snap), len(snap))
			}
		})
	}
}

func TestCreateAndOpenErrors(t *testing.T) {
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, reopen := k.open(t)
			mustCreate(t, st, "taken")
			_, err := st.Create("taken")
			wantErrIs(t, err, host.ErrSessionExists)
			_, err = st.Open("missing")
			wantErrIs(t, err, host.ErrSessionNotFound)
			if reopen != nil {
				st = reopen(t)
				_, err = st.Create("taken")
				wantErrIs(t, err, host.ErrSessionExists)
				if s := mustOpen(t, st, "taken"); s.Len() != 0 {
					t.Errorf("Len of reopened empty session = %d, want 0", s.Len())
				}
			}
			for _, id := range badIDs() {
				if id != "" { // Create("") picks a fresh ID
					_, err := st.Create(id)
					wantErrIs(t, err, host.ErrBadSessionID)
				}
				_, err = st.Open(id)
				wantErrIs(t, err, host.ErrBadSessionID)
			}
		})
	}
}

func TestOpenReturnsTheSameSession(t *testing.T) {
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, _ := k.open(t)
			s := mustCreate(t, st, "same")
			a, b := mustOpen(t, st, "same"), mustOpen(t, st, "same")
			if a != s || b != s {
				t.Fatal("Open returned a different session object than Create")
			}
		})
	}
}

func TestFork(t *testing.T) {
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, reopen := k.open(t)
			parent := mustCreate(t, st, "parent")
			src := &host.Source{Kind: host.SourceUser}
			mustAppend(t, parent, host.Event{Type: host.TypeUserMessage, Source: src, Data: json.RawMessage(`{"content":[]}`)})
			appendN(t, parent, 4)
			all := parent.Events().Slice()

			for _, end := range []int{0, 2, 5} {
				f, err := parent.Fork(end)
				if err != nil {
					t.Fatalf("Fork(%d): %v", end, err)
				}
				if f.ID() == parent.ID() || store.ValidateID(f.ID()) != nil {
					t.Fatalf("fork id %q: want a fresh valid id", f.ID())
				}
				wantEvents(t, f.Events().Slice(), all[:end])
				got := mustAppend(t, f, host.Event{Type: "fork/only"})
				if got.Seq != uint64(end)+1 {
					t.Errorf("first fork append seq = %d, want %d", got.Seq, end+1)
				}
				if o := mustOpen(t, st, f.ID()); o.Len() != end+1 {
					t.Errorf("Open(fork).Len = %d, want %d", o.Len(), end+1)
				}
			}
			wantEvents(t, parent.Events().Slice(), all)

			for _, end := range []int{-1, 6} {
				_, err := parent.Fork(end)
				wantErrIs(t, err, host.ErrBadFork)
			}

			f, err := parent.Fork(3)
			if err != nil {
				t.Fatal(err)
			}
			ff, err := f.Fork(2)
			if err != nil {
				t.Fatalf("fork of a fork: %v", err)
			}
			wantEvents(t, ff.Events().Slice(), all[:2])

			if reopen != nil {
				id := f.ID()
				st = reopen(t)
				wantEvents(t, mustOpen(t, st, id).Events().Slice(), all[:3])
			}
		})
	}
}

// TestConcurrentAppends runs 64 writers and several subscribers at once;
// run it with -race.
func TestConcurrentAppends(t *testing.T) {
	const workers, per = 64, 8
	for _, k := range storeKinds() {
		t.Run(k.name, func(t *testing.T) {
			st, reopen := k.open(t)
			s := mustCreate(t, st, "busy")

			// Two subscribers from the start, and two that join while the
			// writers run: one folding the whole log, one from its length.
			var early [2][]host.Event
			for i := range early {
				defer s.Subscribe(0, func(e host.Event) { early[i] = append(early[i], e) })()
			}
			var (
				late, tail  []host.Event
				tailFrom    int
				writersDone = make(chan struct{})
				joinerDone  = make(chan struct{})
				writers     sync.WaitGroup
			)
			joined := make(chan struct{})
			go func() {
				defer close(joinerDone)
				// Join while writers run; they wait half-way for us, so
				// both late subscribers also see live appends.
				for deadline := time.Now().Add(10 * time.Second); s.Len() < workers && time.Now().Before(deadline); {
					time.Sleep(100 * time.Microsecond)
				}
				unLate := s.Subscribe(0, func(e host.Event) { late = append(late, e) })
				tailFrom = s.Len()
				unTail := s.Subscribe(tailFrom, func(e host.Event) { tail = append(tail, e) })
				close(joined)
				<-writersDone
				unLate()
				unTail()
			}()

			seqs := make([][]uint64, workers)
			for w := range workers {
				writers.Add(1)
				go func() {
					defer writers.Done()
					for n := range per {
						if n == per/2 {
							<-joined
						}
						e, err := s.Append(ev(t, "test/w", map[string]int{"w": w, "n": n}))
						if err != nil {
							t.Errorf("worker %d append %d: %v", w, n, err)
							return
						}
						seqs[w] = append(seqs[w], e.Seq)
					}
				}()
			}
			writers.Wait()
			close(writersDone)
			<-joinerDone

			all := s.Events().Slice()
			if len(all) != workers*per {
				t.Fatalf("Len = %d, want %d", len(all), workers*per)
			}
			type key struct{ W, N int }
			seen := map[key]bool{}
			lastN := make([]int, workers)
			for i := range lastN {
				lastN[i] = -1
			}
			for i, e := range all {
				if e.Seq != uint64(i)+1 {
					t.Fatalf("event %d has seq %d", i, e.Seq)
				}
				var k key
				if err := json.Unmarshal(e.Data, &k); err != nil {
					t.Fatal(err)
				}
				if seen[k] {
					t.Fatalf("%+v appended twice", k)
				}
				seen[k] = true
				if k.N != lastN[k.W]+1 {
					t.Fatalf("worker %d: event %d logged after event %d", k.W, k.N, lastN[k.W])
				}
				lastN[k.W] = k.N
			}
			for w, ss := range seqs {
				for i := 1; i < len(ss); i++ {
					if ss[i] <= ss[i-1] {
						t.Fatalf("worker %d got seqs %v, want strictly increasing", w, ss)
					}
				}
			}
			for i := range early {
				wantEvents(t, early[i], all)
			}
			if tailFrom < workers || tailFrom > workers*per/2 {
				t.Errorf("late subscribers joined at %d, want between %d and %d", tailFrom, workers, workers*per/2)
			}
			wantEvents(t, late, all)
			wantEvents(t, tail, all[tailFrom:])

			if reopen != nil {
				st = reopen(t)
				wantEvents(t, mustOpen(t, st, "busy").Events().Slice(), all)
			}
		})
	}
}
