package store_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// storeKind builds one kind of store for the shared tests.
type storeKind struct {
	name string
	// open returns a fresh store; for file stores, reopen returns another
	// store over the same directory (nil for memory).
	open func(t *testing.T) (host.Store, func(t *testing.T) host.Store)
}

func storeKinds() []storeKind {
	return []storeKind{
		{name: "memory", open: func(*testing.T) (host.Store, func(*testing.T) host.Store) {
			return store.NewMemory(), nil
		}},
		{name: "dir", open: func(t *testing.T) (host.Store, func(*testing.T) host.Store) {
			dir := sessionsDir(t)
			d := openDir(t, dir)
			return d, func(t *testing.T) host.Store {
				if err := d.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
				return openDir(t, dir)
			}
		}},
	}
}

// openDir opens a Dir that is closed when the test ends.
func openDir(t testing.TB, dir string, opts ...store.Option) *store.Dir {
	t.Helper()
	d, err := store.OpenDir(dir, opts...)
	if err != nil {
		t.Fatalf("OpenDir(%s): %v", dir, err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// ev returns an event of type typ whose data is the JSON of v.
func ev(t testing.TB, typ string, v any) host.Event {
	t.Helper()
	e := host.Event{Type: typ}
	if v != nil {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("marshal %v: %v", v, err)
		}
		e.Data = b
	}
	return e
}

func mustCreate(t testing.TB, st host.Store, id string) host.Session {
	t.Helper()
	s, err := st.Create(id)
	if err != nil {
		t.Fatalf("Create(%q): %v", id, err)
	}
	return s
}

func mustOpen(t testing.TB, st host.Store, id string) host.Session {
	t.Helper()
	s, err := st.Open(id)
	if err != nil {
		t.Fatalf("Open(%q): %v", id, err)
	}
	return s
}

func mustAppend(t testing.TB, s host.Session, e host.Event) host.Event {
	t.Helper()
	got, err := s.Append(e)
	if err != nil {
		t.Fatalf("Append(%s): %v", e.Type, err)
	}
	return got
}

// appendN appends n events of type "test/n" with data {"i":k}.
func appendN(t testing.TB, s host.Session, n int) []host.Event {
	t.Helper()
	out := make([]host.Event, 0, n)
	for k := range n {
		out = append(out, mustAppend(t, s, ev(t, "test/n", map[string]int{"i": k})))
	}
	return out
}

func wantEvents(t testing.TB, got, want []host.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d\ngot:  %s\nwant: %s", len(got), len(want), fmtEvents(got), fmtEvents(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("event %d:\ngot:  %s\nwant: %s", i, fmtEvents(got[i:i+1]), fmtEvents(want[i:i+1]))
		}
	}
}

func fmtEvents(evs []host.Event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "{seq=%d type=%s time=%s loc=%s source=%+v data=%q} ",
			e.Seq, e.Type, e.Time.Format(time.RFC3339Nano), e.Time.Location(), e.Source, e.Data)
	}
	return b.String()
}

func wantErrIs(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one matching %v", err, target)
	}
}

// readLines returns the file's lines with their newlines.
func readLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(string(b), "\n")
}

// sessionsDir returns a path for a sessions directory that OpenDir will
// create (t.TempDir's own directories have mode 0755 under the usual umask).
func sessionsDir(t testing.TB) string {
	return filepath.Join(t.TempDir(), "sessions")
}
