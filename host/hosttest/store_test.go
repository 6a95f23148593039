package hosttest_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/store"
)

// brokenEnv names the broken store a child process of
// TestStoreFailsBrokenStores runs the suite against.
const brokenEnv = "HOSTTEST_BROKEN_STORE"

// brokenStores each break one guarantee; wantFail is the subtest that
// must catch it.
var brokenStores = []struct {
	name     string
	wantFail string
	breakIt  func(*brokenSession)
}{
	{"fork copies one event too many", "session/Fork_copies_exactly_the_prefix",
		func(b *brokenSession) { b.forkExtra = true }},
	{"subscribe skips the first replayed event", "session/Subscribe(from)_replays_from_index_from,_then_follows",
		func(b *brokenSession) { b.subscribeSkip = true }},
	{"cond runs before the append lock", "session/AppendIf_runs_cond_after_every_earlier_event_was_delivered_to_subscribers",
		func(b *brokenSession) { b.condEarly = true }},
	{"events copies the log", "session/an_Events_snapshot_never_changes_and_costs_no_allocation",
		func(b *brokenSession) { b.eventsCopy = true }},
	{"open of an unknown id creates it", "Open_of_an_unknown_ID_is_ErrSessionNotFound",
		func(b *brokenSession) { b.openCreates = true }},
}

// TestStoreFailsBrokenStores runs the suite, in a child process, against
// stores that each break one guarantee, and checks that the subtest
// stating that guarantee fails.
func TestStoreFailsBrokenStores(t *testing.T) {
	if name := os.Getenv(brokenEnv); name != "" {
		for _, b := range brokenStores {
			if b.name == name {
				hosttest.TestStore(t, func(testing.TB) host.Store {
					bs := &brokenSession{}
					b.breakIt(bs)
					return &brokenStore{Store: store.NewMemory(), flags: *bs}
				})
				return
			}
		}
		t.Fatalf("%s=%q: no such broken store", brokenEnv, name)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range brokenStores {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(exe, "-test.run=^TestStoreFailsBrokenStores$", "-test.v")
			cmd.Env = append(os.Environ(), brokenEnv+"="+b.name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a store whose %s:\n%s", b.name, out)
			}
			if want := "--- FAIL: TestStoreFailsBrokenStores/" + b.wantFail + " "; !strings.Contains(string(out), want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		})
	}
}

// brokenStore wraps a working store so that its sessions misbehave as
// flags say.
type brokenStore struct {
	host.Store
	flags brokenSession
}

func (b *brokenStore) wrap(s host.Session) host.Session {
	w := b.flags
	w.Session = s
	return &w
}

func (b *brokenStore) Create(id string) (host.Session, error) {
	s, err := b.Store.Create(id)
	if err != nil {
		return nil, err
	}
	return b.wrap(s), nil
}

func (b *brokenStore) Open(id string) (host.Session, error) {
	s, err := b.Store.Open(id)
	if err != nil && b.flags.openCreates {
		s, err = b.Store.Create(id)
	}
	if err != nil {
		return nil, err
	}
	return b.wrap(s), nil
}

type brokenSession struct {
	host.Session
	forkExtra, subscribeSkip, condEarly, eventsCopy, openCreates bool
}

func (b *brokenSession) Events() host.Log {
	if b.eventsCopy {
		return host.LogOf(slices.Clone(b.Session.Events().Slice()))
	}
	return b.Session.Events()
}

func (b *brokenSession) AppendIf(e host.Event, cond func() bool) (host.Event, bool, error) {
	if b.condEarly {
		if !cond() {
			return host.Event{}, false, nil
		}
		time.Sleep(100 * time.Microsecond) // let another writer in
		e, err := b.Session.Append(e)
		return e, err == nil, err
	}
	return b.Session.AppendIf(e, cond)
}

func (b *brokenSession) Subscribe(from int, fn func(host.Event)) func() {
	if b.subscribeSkip && from < b.Len() {
		from = max(from, 0) + 1
	}
	return b.Session.Subscribe(from, fn)
}

func (b *brokenSession) Fork(end int) (host.Session, error) {
	if b.forkExtra && end < b.Len() {
		end++
	}
	f, err := b.Session.Fork(end)
	if err != nil {
		return nil, err
	}
	w := *b
	w.Session = f
	return &w, nil
}

// TestStoreDir runs the example's conformance test, so the example cannot rot.
func TestStoreDir(t *testing.T) { conformance(t) }
