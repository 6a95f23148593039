package hosttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dshgo/planmode/host"
)

// SessionCloser is implemented by stores that can release an open session,
// so that the next Open reads it back from where the store keeps it
// (store.Dir has it). [TestStore] uses it to check that a session survives
// being closed and opened again; a store without it is checked through
// Open of a session that is still open.
type SessionCloser interface {
	// CloseSession releases the open session id; later appends through the
	// old session value fail.
	CloseSession(id string) error
}

// TestStore checks that the stores newStore makes implement [host.Store]
// and [host.Session] as the contracts in package host describe. Each
// guarantee is one named subtest; every subtest gets a fresh store from
// newStore, which should release it with t.Cleanup. A store's own test is
// one call:
//
//	func TestConformance(t *testing.T) {
//		hosttest.TestStore(t, func(t testing.TB) host.Store { return store.NewMemory() })
//	}
//
// The suite assumes nothing about where a store keeps its sessions: it
// uses only the contracts, and [SessionCloser] where the store has it. Run
// it with -race: several subtests append and subscribe concurrently.
func TestStore(t *testing.T, newStore func(t testing.TB) host.Store) {
	t.Helper()
	for _, c := range storeCases {
		t.Run(c.name, func(t *testing.T) {
			st := newStore(t)
			if st == nil {
				t.Fatal("newStore returned nil")
			}
			c.run(t, st)
		})
	}
	t.Run("session", func(t *testing.T) {
		TestSession(t, func(t testing.TB) host.Session {
			t.Helper()
			return stCreate(t, newStore(t), "")
		})
	})
}

// TestSession checks that the sessions newSession makes implement
// [host.Session]: sequence numbers, snapshots, AppendIf, Subscribe and Fork,
// alone and under concurrent appends. newSession must
// return a fresh, empty session that accepts events of any type with any
// JSON data. Use it for a session type that has no store of its own;
// [TestStore] runs it for stores.
func TestSession(t *testing.T, newSession func(t testing.TB) host.Session) {
	t.Helper()
	for _, c := range sessionCases {
		t.Run(c.name, func(t *testing.T) {
			s := newSession(t)
			if s == nil {
				t.Fatal("newSession returned nil")
			}
			if n := s.Len(); n != 0 {
				t.Fatalf("new session has %d events, want 0", n)
			}
			c.run(t, s)
		})
	}
}

type storeCase struct {
	name string
	run  func(t *testing.T, st host.Store)
}

type sessionCase struct {
	name string
	run  func(t *testing.T, s host.Session)
}

// stBadIDs are IDs no store may accept: they are empty, hold path
// separators or dots, or are far too long.
var stBadIDs = []string{"", "../escape", "a/b", `a\b`, ".", "..", "has space", strings.Repeat("x", 4096)}

var storeCases = []storeCase{
	{"Create returns an empty session with the given ID", func(t *testing.T, st host.Store) {
		s := stCreate(t, st, "given-id_1")
		if s.ID() != "given-id_1" {
			t.Errorf("ID() = %q, want %q", s.ID(), "given-id_1")
		}
		if s.Len() != 0 || len(s.Events().Slice()) != 0 {
			t.Errorf("new session has Len %d and %d events, want 0", s.Len(), len(s.Events().Slice()))
		}
	}},
	{"Create with an empty ID picks a fresh ID each time", func(t *testing.T, st host.Store) {
		a, b := stCreate(t, st, ""), stCreate(t, st, "")
		if a.ID() == "" || b.ID() == "" || a.ID() == b.ID() {
			t.Fatalf("IDs %q and %q: want two distinct non-empty IDs", a.ID(), b.ID())
		}
		if o := stOpen(t, st, a.ID()); o.ID() != a.ID() {
			t.Errorf("Open(%q).ID() = %q", a.ID(), o.ID())
		}
	}},
	{"Create on a taken ID is ErrSessionExists and keeps the session", func(t *testing.T, st host.Store) {
		s := stCreate(t, st, "taken")
		want := stAppendN(t, s, 2)
		_, err := st.Create("taken")
		stWantErrIs(t, err, host.ErrSessionExists)
		stWantEvents(t, stOpen(t, st, "taken").Events().Slice(), want)
	}},
	{"Open of an unknown ID is ErrSessionNotFound", func(t *testing.T, st host.Store) {
		_, err := st.Open("never-created")
		stWantErrIs(t, err, host.ErrSessionNotFound)
		// The failed Open created nothing.
		_, err = st.Open("never-created")
		stWantErrIs(t, err, host.ErrSessionNotFound)
		if _, err := st.Create("never-created"); err != nil {
			t.Errorf("Create after a failed Open: %v", err)
		}
	}},
	{"Create and Open of a bad ID are ErrBadSessionID", func(t *testing.T, st host.Store) {
		for _, id := range stBadIDs {
			if id != "" { // Create("") picks a fresh ID
				_, err := st.Create(id)
				stWantErrIs(t, err, host.ErrBadSessionID)
			}
			_, err := st.Open(id)
			stWantErrIs(t, err, host.ErrBadSessionID)
		}
	}},
	{"Open replays the events Append returned", func(t *testing.T, st host.Store) {
		s := stCreate(t, st, "replay")
		want := []host.Event{
			stAppend(t, s, host.Event{Type: host.TypeUserMessage, Source: &host.Source{Kind: host.SourceUser},
				Data: json.RawMessage(`{"content":[{"type":"text","text":"héllo \u2028 <&> \"q\""}]}`)}),
			stAppend(t, s, host.Event{Type: "test/no-data"}),
			stAppend(t, s, host.Event{Type: "test/given-time", Time: time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.FixedZone("X", 3600))}),
			stAppend(t, s, host.Event{Type: "test/plugin", Source: &host.Source{Kind: host.SourcePlugin, Plugin: "p", Form: "notice"},
				Data: json.RawMessage(`[1,2.5,null,true,{"a":{}}]`)}),
		}
		stWantEvents(t, stOpen(t, st, "replay").Events().Slice(), want)
		if c, ok := st.(SessionCloser); ok {
			if err := c.CloseSession("replay"); err != nil {
				t.Fatalf("CloseSession: %v", err)
			}
			o := stOpen(t, st, "replay")
			stWantEvents(t, o.Events().Slice(), want)
			if got := stAppend(t, o, host.Event{Type: "test/after-reopen"}); got.Seq != uint64(len(want))+1 {
				t.Errorf("first append after reopening has seq %d, want %d", got.Seq, len(want)+1)
			}
		}
	}},
	{"Open runs the validators over the stored events", func(t *testing.T, st host.Store) {
		s := stCreate(t, st, "revalidate")
		stAppend(t, s, host.Event{Type: "test/ok"})
		stAppend(t, s, host.Event{Type: "test/later-refused"})
		if c, ok := st.(SessionCloser); ok {
			if err := c.CloseSession("revalidate"); err != nil {
				t.Fatalf("CloseSession: %v", err)
			}
		}
		unregister := stAddValidator(t, st, "refuse-later", stRefuseType("test/later-refused"))
		_, err := st.Open("revalidate")
		stWantErrIs(t, err, errStRefused)
		unregister()
		if o := stOpen(t, st, "revalidate"); o.Len() != 2 {
			t.Errorf("Open after unregistering the validator: Len %d, want 2", o.Len())
		}
	}},
	{"validators reject an append and nothing changes", func(t *testing.T, st host.Store) {
		s := stCreate(t, st, "rejected")
		first := stAppend(t, s, host.Event{Type: "test/ok"})
		var delivered []host.Event
		defer s.Subscribe(0, func(e host.Event) { delivered = append(delivered, e) })()
		stAddValidator(t, st, "refuse", stRefuseType("test/refused"))
		for _, appendFn := range []func() error{
			func() error { _, err := s.Append(host.Event{Type: "test/refused"}); return err },
			func() error {
				_, ok, err := s.AppendIf(host.Event{Type: "test/refused"}, func() bool { return true })
				if ok {
					return errors.New("AppendIf reported an append")
				}
				return err
			},
		} {
			stWantErrIs(t, appendFn(), errStRefused)
		}
		stWantEvents(t, s.Events().Slice(), []host.Event{first})
		if s.Len() != 1 {
			t.Errorf("Len = %d after rejected appends, want 1", s.Len())
		}
		stWantEvents(t, delivered, []host.Event{first})
		if got := stAppend(t, s, host.Event{Type: "test/ok"}); got.Seq != 2 {
			t.Errorf("append after rejected ones has seq %d, want 2", got.Seq)
		}
		stWantEvents(t, stOpen(t, st, "rejected").Events().Slice(), s.Events().Slice())
	}},
	{"validators see the event with its Seq and Time set", func(t *testing.T, st host.Store) {
		var seen []host.Event
		var mu sync.Mutex
		stAddValidator(t, st, "record", func(e host.Event) error {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, e)
			return nil
		})
		s := stCreate(t, st, "seen")
		got := stAppendN(t, s, 3)
		mu.Lock()
		defer mu.Unlock()
		stWantEvents(t, seen, got)
	}},
	{"AddValidator on a taken name is ErrDuplicate until unregistered", func(t *testing.T, st host.Store) {
		unregister := stAddValidator(t, st, "v", func(host.Event) error { return nil })
		_, err := st.AddValidator("v", func(host.Event) error { return nil })
		stWantErrIs(t, err, host.ErrDuplicate)
		unregister()
		unregister() // idempotent
		stAddValidator(t, st, "v", func(host.Event) error { return nil })
	}},
	{"unregistering a validator stops it", func(t *testing.T, st host.Store) {
		s := stCreate(t, st, "unregister")
		unregister := stAddValidator(t, st, "refuse", stRefuseType("test/refused"))
		_, err := s.Append(host.Event{Type: "test/refused"})
		stWantErrIs(t, err, errStRefused)
		unregister()
		stAppend(t, s, host.Event{Type: "test/refused"})
	}},
	{"Fork makes a session the store can Open", func(t *testing.T, st host.Store) {
		s := stCreate(t, st, "parent")
		stAppendN(t, s, 3)
		f, err := s.Fork(2)
		if err != nil {
			t.Fatalf("Fork(2): %v", err)
		}
		fe := stAppend(t, f, host.Event{Type: "test/fork-only"})
		want := append(append([]host.Event(nil), s.Events().Slice()[:2]...), fe)
		stWantEvents(t, stOpen(t, st, f.ID()).Events().Slice(), want)
		_, err = st.Create(f.ID())
		stWantErrIs(t, err, host.ErrSessionExists)
		if c, ok := st.(SessionCloser); ok {
			if err := c.CloseSession(f.ID()); err != nil {
				t.Fatalf("CloseSession(fork): %v", err)
			}
			stWantEvents(t, stOpen(t, st, f.ID()).Events().Slice(), want)
		}
	}},
	{"Sync makes appended events survive reopening", func(t *testing.T, st host.Store) {
		s := stCreate(t, st, "synced")
		want := stAppendN(t, s, 3)
		if err := host.Sync(s); err != nil {
			t.Fatalf("Sync: %v", err)
		}
		if c, ok := st.(SessionCloser); ok {
			if err := c.CloseSession("synced"); err != nil {
				t.Fatalf("CloseSession: %v", err)
			}
		}
		stWantEvents(t, stOpen(t, st, "synced").Events().Slice(), want)
	}},
	{"AfterClose runs once the session is closed, and stop keeps it from running", func(t *testing.T, st host.Store) {
		c, ok := st.(SessionCloser)
		s := stCreate(t, st, "after-close")
		n, ok2 := s.(host.SessionCloseNotifier)
		if !ok || !ok2 {
			t.Log("the store has no CloseSession or its sessions no AfterClose; nothing to check")
			return
		}
		ran := make(chan struct{})
		stopped := false
		stop := n.AfterClose(func() { close(ran) })
		stopMe := n.AfterClose(func() { stopped = true })
		if !stopMe() {
			t.Error("stop before the close reported that f had started")
		}
		select {
		case <-ran:
			t.Fatal("AfterClose ran before the session was closed")
		default:
		}
		if err := c.CloseSession("after-close"); err != nil {
			t.Fatalf("CloseSession: %v", err)
		}
		select {
		case <-ran:
		case <-time.After(5 * time.Second):
			t.Fatal("AfterClose did not run within 5s of CloseSession")
		}
		if stop() {
			t.Error("stop after f started reported that it kept f from running")
		}
		if stopped {
			t.Error("a stopped AfterClose func ran")
		}
		late := make(chan struct{})
		n.AfterClose(func() { close(late) })
		select {
		case <-late:
		case <-time.After(5 * time.Second):
			t.Fatal("AfterClose on a closed session did not run at once")
		}
	}},
	{"a closed session takes no appends and its log is kept", func(t *testing.T, st host.Store) {
		c, ok := st.(SessionCloser)
		if !ok {
			// Nothing to check without a way to close; this states it.
			t.Log("the store has no CloseSession; nothing to close")
			return
		}
		s := stCreate(t, st, "closed")
		want := stAppendN(t, s, 2)
		if err := c.CloseSession("closed"); err != nil {
			t.Fatalf("CloseSession: %v", err)
		}
		if _, err := s.Append(host.Event{Type: "test/late"}); err == nil {
			t.Error("Append through a closed session succeeded")
		}
		stWantEvents(t, stOpen(t, st, "closed").Events().Slice(), want)
	}},
}

var sessionCases = []sessionCase{
	{"Append assigns consecutive seqs from 1 and ignores the caller's", func(t *testing.T, s host.Session) {
		for i := range 5 {
			got := stAppend(t, s, host.Event{Type: "test/seq", Seq: 99})
			if got.Seq != uint64(i)+1 {
				t.Fatalf("append %d got seq %d, want %d", i, got.Seq, i+1)
			}
		}
		for i, e := range s.Events().Slice() {
			if e.Seq != uint64(i)+1 {
				t.Fatalf("Events()[%d].Seq = %d, want %d", i, e.Seq, i+1)
			}
		}
	}},
	{"Append sets a zero Time to now and keeps a given one", func(t *testing.T, s host.Session) {
		before := time.Now()
		got := stAppend(t, s, host.Event{Type: "test/now"})
		after := time.Now()
		if got.Time.Before(before.Add(-time.Second)) || got.Time.After(after.Add(time.Second)) {
			t.Errorf("Time = %v, want between %v and %v", got.Time, before, after)
		}
		given := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
		if got := stAppend(t, s, host.Event{Type: "test/given", Time: given}); !got.Time.Equal(given) {
			t.Errorf("Time = %v, want the given %v", got.Time, given)
		}
	}},
	{"Append returns the event as Events holds it", func(t *testing.T, s host.Session) {
		got := []host.Event{
			stAppend(t, s, host.Event{Type: "test/a", Data: json.RawMessage(`{"k":[1,2]}`)}),
			stAppend(t, s, host.Event{Type: "test/b", Source: &host.Source{Kind: host.SourceUser}}),
		}
		stWantEvents(t, s.Events().Slice(), got)
		if s.Len() != 2 {
			t.Errorf("Len = %d, want 2", s.Len())
		}
	}},
	{"the log shares no memory with the caller's event", func(t *testing.T, s host.Session) {
		data := []byte(`{"s":"original"}`)
		src := &host.Source{Kind: host.SourcePlugin, Plugin: "p"}
		stAppend(t, s, host.Event{Type: "test/owned", Source: src, Data: data})
		want := stCopyEvents(s.Events().Slice())
		copy(data, `{"s":"CHANGED!"}`)
		src.Plugin = "changed"
		stWantEvents(t, s.Events().Slice(), want)
	}},
	{"an Events snapshot never changes and costs no allocation", func(t *testing.T, s host.Session) {
		stAppendN(t, s, 3)
		snap := s.Events()
		want := stCopyEvents(snap.Slice())
		// Past several chunk boundaries, so that a log that moves or
		// rewrites its storage when it grows shows it.
		stAppendN(t, s, 2500)
		stWantEvents(t, snap.Slice(), want)
		if snap.Len() != 3 {
			t.Fatalf("snapshot Len = %d after appends, want 3", snap.Len())
		}
		// A copy of a snapshot does not write into the log.
		grown := append(snap.Slice(), host.Event{Seq: 999, Type: "test/forged"})
		if e := s.Events().At(3); e.Seq != 4 || e.Type == "test/forged" {
			t.Fatalf("appending to a snapshot's copy changed the log: event 4 is %+v", e)
		}
		_ = grown
		if n := testing.AllocsPerRun(100, func() { _ = s.Events(); _ = s.Len() }); n != 0 {
			t.Errorf("Events and Len allocate %v times, want 0", n)
		}
	}},
	{"AppendIf appends only when cond returns true", func(t *testing.T, s host.Session) {
		stAppend(t, s, host.Event{Type: "test/first"})
		calls := 0
		_, ok, err := s.AppendIf(host.Event{Type: "test/no"}, func() bool { calls++; return false })
		if err != nil || ok {
			t.Fatalf("AppendIf(false) = %v, %v; want false, nil", ok, err)
		}
		if s.Len() != 1 {
			t.Fatalf("Len = %d after AppendIf(false), want 1", s.Len())
		}
		got, ok, err := s.AppendIf(host.Event{Type: "test/yes"}, func() bool { calls++; return true })
		if err != nil || !ok || got.Seq != 2 {
			t.Fatalf("AppendIf(true) = seq %d, %v, %v; want seq 2, true, nil", got.Seq, ok, err)
		}
		if calls != 2 {
			t.Errorf("cond ran %d times, want once per AppendIf", calls)
		}
		stWantEvents(t, s.Events().Slice()[1:], []host.Event{got})
	}},
	{"AppendIf runs cond after every earlier event was delivered to subscribers", func(t *testing.T, s host.Session) {
		const writers, per = 8, 16
		var delivered atomic.Uint64 // seq of the last event a subscriber saw
		defer s.Subscribe(0, func(e host.Event) {
			if prev := delivered.Swap(e.Seq); e.Seq != prev+1 {
				t.Errorf("subscriber saw seq %d after %d", e.Seq, prev)
			}
		})()
		stWriters(writers, per, func(w, n int) bool {
			var sawDelivered uint64
			e, ok, err := s.AppendIf(stEvent(t, "test/cond", w, n), func() bool {
				sawDelivered = delivered.Load()
				return true
			})
			if err != nil || !ok {
				t.Errorf("AppendIf: %v, %v", ok, err)
				return false
			}
			// cond saw every earlier event delivered, and nothing was
			// appended between cond and this event.
			if sawDelivered != e.Seq-1 {
				t.Errorf("cond of event %d ran when %d events were delivered, want %d", e.Seq, sawDelivered, e.Seq-1)
				return false
			}
			return true
		})()
		if got := delivered.Load(); got != writers*per {
			t.Errorf("subscriber saw %d events, want %d", got, writers*per)
		}
	}},
	{"Subscribe(from) replays from index from, then follows", func(t *testing.T, s host.Session) {
		stAppendN(t, s, 3)
		tests := []struct {
			name     string
			giveFrom int
			wantSeqs []uint64
		}{
			{"from zero", 0, []uint64{1, 2, 3, 4, 5}},
			{"negative from is zero", -4, []uint64{1, 2, 3, 4, 5}},
			{"from the middle", 2, []uint64{3, 4, 5}},
			{"from Len", 3, []uint64{4, 5}},
			{"from past the end", 10, []uint64{4, 5}},
		}
		got := make([][]uint64, len(tests))
		var unsubs []func()
		for i, tt := range tests {
			unsubs = append(unsubs, s.Subscribe(tt.giveFrom, func(e host.Event) { got[i] = append(got[i], e.Seq) }))
		}
		stAppendN(t, s, 2)
		for _, u := range unsubs {
			u()
		}
		for i, tt := range tests {
			if fmt.Sprint(got[i]) != fmt.Sprint(tt.wantSeqs) {
				t.Errorf("%s: subscriber saw seqs %v, want %v", tt.name, got[i], tt.wantSeqs)
			}
		}
	}},
	{"subscribers get the events Append returned, in order", func(t *testing.T, s host.Session) {
		var a, b []host.Event
		defer s.Subscribe(0, func(e host.Event) { a = append(a, e) })()
		defer s.Subscribe(0, func(e host.Event) { b = append(b, e) })()
		want := stAppendN(t, s, 4)
		stWantEvents(t, a, want)
		stWantEvents(t, b, want)
	}},
	{"Subscribe under concurrent appends has no gap and no duplicate", func(t *testing.T, s host.Session) {
		const writers, per = 8, 24
		const rounds = 6
		var (
			seen    = make([][]host.Event, 1+3*rounds) // fixed: subscribers write their own element
			froms   []int
			unsubs  []func()
			started = make(chan struct{})
		)
		join := func(from int) {
			i := len(froms)
			froms = append(froms, from)
			unsubs = append(unsubs, s.Subscribe(from, func(e host.Event) { seen[i] = append(seen[i], e) }))
		}
		join(0)
		wait := stWriters(writers, per, func(w, n int) bool {
			if n == 0 {
				<-started
			}
			stAppend(t, s, stEvent(t, "test/concurrent", w, n))
			return true
		})
		close(started)
		// Subscribers join while the writers run, at whatever point the
		// log has reached, from the start, from Len and from the middle.
		for range rounds {
			n := s.Len()
			join(0)
			join(n)
			join(n / 2)
			time.Sleep(200 * time.Microsecond)
		}
		wait()
		for _, u := range unsubs {
			u()
		}
		all := s.Events().Slice()
		if len(all) != writers*per {
			t.Fatalf("Len = %d, want %d", len(all), writers*per)
		}
		stCheckWriters(t, all, writers, per)
		for i, got := range seen {
			from := min(froms[i], len(all))
			stWantEvents(t, got, all[from:])
		}
	}},
	{"unsubscribe stops delivery at once and is idempotent", func(t *testing.T, s host.Session) {
		var (
			mu       sync.Mutex
			stopped  bool
			lateSeen int
		)
		unsubscribe := s.Subscribe(0, func(host.Event) {
			mu.Lock()
			defer mu.Unlock()
			if stopped {
				lateSeen++
			}
		})
		wait := stWriters(4, 20, func(w, n int) bool {
			stAppend(t, s, stEvent(t, "test/unsub", w, n))
			return true
		})
		for s.Len() < 10 {
			time.Sleep(50 * time.Microsecond)
		}
		unsubscribe()
		mu.Lock()
		stopped = true
		mu.Unlock()
		unsubscribe()
		wait()
		mu.Lock()
		defer mu.Unlock()
		if lateSeen != 0 {
			t.Errorf("subscriber called %d times after unsubscribe returned", lateSeen)
		}
	}},
	{"concurrent appends get distinct consecutive seqs and snapshots stay consistent", func(t *testing.T, s host.Session) {
		const writers, per = 8, 24
		done := make(chan struct{})
		readerDone := make(chan struct{})
		go func() {
			defer close(readerDone)
			for {
				snap := s.Events()
				for i, e := range snap.All() {
					if e.Seq != uint64(i)+1 {
						t.Errorf("snapshot of %d events: index %d has seq %d", snap.Len(), i, e.Seq)
						return
					}
				}
				if n := s.Len(); n < snap.Len() {
					t.Errorf("Len %d after a snapshot of %d events", n, snap.Len())
					return
				}
				select {
				case <-done:
					return
				default:
				}
			}
		}()
		seqs := make([][]uint64, writers)
		stWriters(writers, per, func(w, n int) bool {
			seqs[w] = append(seqs[w], stAppend(t, s, stEvent(t, "test/seqs", w, n)).Seq)
			return true
		})()
		close(done)
		<-readerDone
		all := s.Events().Slice()
		stCheckWriters(t, all, writers, per)
		got := map[uint64]bool{}
		for w, ss := range seqs {
			for i, q := range ss {
				if got[q] || q == 0 || q > writers*per {
					t.Fatalf("writer %d got seq %d twice or out of range", w, q)
				}
				got[q] = true
				if i > 0 && q <= ss[i-1] {
					t.Fatalf("writer %d got seqs %v, want increasing", w, ss)
				}
				if e := all[q-1]; e.Seq != q {
					t.Fatalf("event at seq %d reads seq %d", q, e.Seq)
				}
			}
		}
	}},
	{"Fork copies exactly the prefix", func(t *testing.T, s host.Session) {
		stAppend(t, s, host.Event{Type: host.TypeUserMessage, Source: &host.Source{Kind: host.SourceUser},
			Data: json.RawMessage(`{"content":[{"type":"text","text":"hi"}]}`)})
		stAppendN(t, s, 4)
		all := stCopyEvents(s.Events().Slice())
		for _, end := range []int{0, 1, 3, 5} {
			f, err := s.Fork(end)
			if err != nil {
				t.Fatalf("Fork(%d): %v", end, err)
			}
			if f.ID() == "" || f.ID() == s.ID() {
				t.Fatalf("Fork(%d).ID() = %q, want a fresh ID", end, f.ID())
			}
			stWantEvents(t, f.Events().Slice(), all[:end])
			if got := stAppend(t, f, host.Event{Type: "test/fork-only"}); got.Seq != uint64(end)+1 {
				t.Errorf("Fork(%d): first append has seq %d, want %d", end, got.Seq, end+1)
			}
		}
		stAppend(t, s, host.Event{Type: "test/parent-only"})
		stWantEvents(t, s.Events().Slice()[:len(all)], all)
		if s.Len() != len(all)+1 {
			t.Errorf("parent Len = %d, want %d: a fork's append reached the parent", s.Len(), len(all)+1)
		}
	}},
	{"a fork is independent of its parent", func(t *testing.T, s host.Session) {
		stAppendN(t, s, 2)
		f, err := s.Fork(2)
		if err != nil {
			t.Fatal(err)
		}
		var parentSaw, forkSaw int
		defer s.Subscribe(s.Len(), func(host.Event) { parentSaw++ })()
		defer f.Subscribe(f.Len(), func(host.Event) { forkSaw++ })()
		stAppend(t, s, host.Event{Type: "test/parent"})
		stAppend(t, f, host.Event{Type: "test/fork"})
		stAppend(t, f, host.Event{Type: "test/fork"})
		if parentSaw != 1 || forkSaw != 2 {
			t.Errorf("parent subscriber saw %d, fork subscriber %d; want 1 and 2", parentSaw, forkSaw)
		}
		ff, err := f.Fork(3)
		if err != nil {
			t.Fatalf("fork of a fork: %v", err)
		}
		stWantEvents(t, ff.Events().Slice(), f.Events().Slice()[:3])
	}},
	{"Sync under concurrent appends keeps every event", func(t *testing.T, s host.Session) {
		// host.Sync does nothing for a session that is not a host.Syncer.
		const writers, per = 8, 12
		stWriters(writers, per, func(w, n int) bool {
			stAppend(t, s, stEvent(t, "test/sync", w, n))
			if err := host.Sync(s); err != nil {
				t.Errorf("Sync: %v", err)
				return false
			}
			return true
		})()
		stCheckWriters(t, s.Events().Slice(), writers, per)
	}},
	{"Fork outside the log is ErrBadFork", func(t *testing.T, s host.Session) {
		stAppendN(t, s, 2)
		for _, end := range []int{-1, 3, 1 << 30} {
			_, err := s.Fork(end)
			stWantErrIs(t, err, host.ErrBadFork)
		}
	}},
}

var errStRefused = errors.New("hosttest: refused by the test validator")

// stRefuseType returns a validator that refuses events of type typ.
func stRefuseType(typ string) host.Validator {
	return func(e host.Event) error {
		if e.Type == typ {
			return fmt.Errorf("event %d %q: %w", e.Seq, e.Type, errStRefused)
		}
		return nil
	}
}

func stAddValidator(t testing.TB, st host.Store, name string, v host.Validator) func() {
	t.Helper()
	unregister, err := st.AddValidator(name, v)
	if err != nil {
		t.Fatalf("AddValidator(%q): %v", name, err)
	}
	t.Cleanup(unregister)
	return unregister
}

func stCreate(t testing.TB, st host.Store, id string) host.Session {
	t.Helper()
	s, err := st.Create(id)
	if err != nil {
		t.Fatalf("Create(%q): %v", id, err)
	}
	return s
}

func stOpen(t testing.TB, st host.Store, id string) host.Session {
	t.Helper()
	s, err := st.Open(id)
	if err != nil {
		t.Fatalf("Open(%q): %v", id, err)
	}
	return s
}

// stAppend appends e; from a goroutine other than the test's it reports
// a failure with Errorf and returns the zero event.
func stAppend(t testing.TB, s host.Session, e host.Event) host.Event {
	t.Helper()
	got, err := s.Append(e)
	if err != nil {
		t.Errorf("Append(%s): %v", e.Type, err)
	}
	return got
}

// stAppendN appends n events of type "test/n" with data {"i":k}.
func stAppendN(t testing.TB, s host.Session, n int) []host.Event {
	t.Helper()
	out := make([]host.Event, 0, n)
	for k := range n {
		out = append(out, stAppend(t, s, host.Event{Type: "test/n", Data: json.RawMessage(fmt.Sprintf(`{"i":%d}`, k))}))
	}
	return out
}

// stWriters starts writers goroutines, each calling write(w, n) for its
// number w and n from 0 to per-1 while write returns true; wait waits for
// them to end.
func stWriters(writers, per int, write func(w, n int) bool) (wait func()) {
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for n := range per {
				if !write(w, n) {
					return
				}
			}
		})
	}
	return wg.Wait
}

// stEvent is writer w's n-th event.
func stEvent(t testing.TB, typ string, w, n int) host.Event {
	t.Helper()
	return host.Event{Type: typ, Data: json.RawMessage(fmt.Sprintf(`{"w":%d,"n":%d}`, w, n))}
}

// stCheckWriters checks that all holds every event of writers x per
// stEvent calls once, each writer's in the order it appended them, with
// seqs 1, 2, 3, ...
func stCheckWriters(t testing.TB, all []host.Event, writers, per int) {
	t.Helper()
	if len(all) != writers*per {
		t.Fatalf("log has %d events, want %d", len(all), writers*per)
	}
	next := make([]int, writers)
	for i, e := range all {
		if e.Seq != uint64(i)+1 {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
		var k struct{ W, N int }
		if err := json.Unmarshal(e.Data, &k); err != nil {
			t.Fatalf("event %d data %s: %v", e.Seq, e.Data, err)
		}
		if k.W < 0 || k.W >= writers || k.N != next[k.W] {
			t.Fatalf("event %d is writer %d's event %d, want its event %d (lost, duplicated or reordered)", e.Seq, k.W, k.N, next[min(max(k.W, 0), writers-1)])
		}
		next[k.W]++
	}
}

func stCopyEvents(evs []host.Event) []host.Event {
	out := make([]host.Event, len(evs))
	for i, e := range evs {
		if e.Source != nil {
			src := *e.Source
			e.Source = &src
		}
		e.Data = bytes.Clone(e.Data)
		out[i] = e
	}
	return out
}

// stSameEvent reports whether a and b are the same stored event: equal
// Seq, Type, Source and Data bytes, and the same instant.
func stSameEvent(a, b host.Event) bool {
	return a.Seq == b.Seq && a.Type == b.Type && a.Time.Equal(b.Time) &&
		reflect.DeepEqual(a.Source, b.Source) && bytes.Equal(a.Data, b.Data)
}

func stWantEvents(t testing.TB, got, want []host.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d\ngot:  %s\nwant: %s", len(got), len(want), stFormat(got), stFormat(want))
	}
	for i := range got {
		if !stSameEvent(got[i], want[i]) {
			t.Fatalf("event %d:\ngot:  %s\nwant: %s", i, stFormat(got[i:i+1]), stFormat(want[i:i+1]))
		}
	}
}

func stFormat(evs []host.Event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "{seq=%d type=%q time=%s source=%+v data=%s} ",
			e.Seq, e.Type, e.Time.Format(time.RFC3339Nano), e.Source, e.Data)
	}
	return b.String()
}

func stWantErrIs(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one matching %v", err, target)
	}
}
