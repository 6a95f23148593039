package store

// Internal tests: they inject write, truncate and sync faults through
// Dir.wrap, which the external tests cannot reach.

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshgo/planmode/host"
)

var (
	errDiskFull = errors.New("injected: no space left")
	errIO       = errors.New("injected: I/O error")
)

// faultyFile writes through to the real file unless a fault is armed.
type faultyFile struct {
	*os.File
	partial  bool  // write half the line, then fail with writeErr
	writeErr error // fail the next write
	truncErr error // fail truncates
	syncErr  error // fail the next sync
	syncs    int
}

func (f *faultyFile) Write(b []byte) (int, error) {
	if f.writeErr == nil {
		return f.File.Write(b)
	}
	err := f.writeErr
	f.writeErr = nil
	n := 0
	if f.partial {
		n, _ = f.File.Write(b[:len(b)/2])
	}
	return n, err
}

func (f *faultyFile) Truncate(size int64) error {
	if f.truncErr != nil {
		return f.truncErr
	}
	return f.File.Truncate(size)
}

func (f *faultyFile) Sync() error {
	f.syncs++
	if err := f.syncErr; err != nil {
		f.syncErr = nil
		return err
	}
	return f.File.Sync()
}

// faultySession opens a Dir whose session files are wrapped by the
// returned faultyFile (one session at a time) and creates session id in it.
func faultySession(t *testing.T, id string, opts ...Option) (*Dir, *faultyFile, host.Session) {
	t.Helper()
	d, err := OpenDir(filepath.Join(t.TempDir(), "sessions"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	ff := &faultyFile{}
	d.wrap = func(f *os.File) file { ff.File = f; return ff }
	s, err := d.Create(id)
	if err != nil {
		t.Fatal(err)
	}
	return d, ff, s
}

func TestFailedWriteIsCutBack(t *testing.T) {
	for _, partial := range []bool{false, true} {
		name := map[bool]string{false: "nothing written", true: "half a line written"}[partial]
		t.Run(name, func(t *testing.T) {
			d, ff, s := faultySession(t, "w")
			if _, err := s.Append(host.Event{Type: "one"}); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(d.Path("w"))
			ff.writeErr, ff.partial = errDiskFull, partial
			_, err := s.Append(host.Event{Type: "two", Data: []byte(`{"pad":"xxxxxxxxxxxxxxxxxxxx"}`)})
			if !errors.Is(err, errDiskFull) || errors.Is(err, ErrSessionFailed) {
				t.Fatalf("Append = %v, want the write error and a usable session", err)
			}
			if after, _ := os.ReadFile(d.Path("w")); !bytes.Equal(before, after) || s.Len() != 1 {
				t.Fatalf("after a failed write: Len %d, file %q; want 1 and %q", s.Len(), after, before)
			}
			if e, err := s.Append(host.Event{Type: "three"}); err != nil || e.Seq != 2 {
				t.Fatalf("next Append = %+v, %v; want seq 2", e, err)
			}
			assertReopens(t, d, "w", s.Events().Slice())
		})
	}
}

func TestFailedCutBackFailsTheSession(t *testing.T) {
	d, ff, s := faultySession(t, "w")
	ff.writeErr, ff.partial, ff.truncErr = errDiskFull, true, errIO
	_, err := s.Append(host.Event{Type: "one"})
	if !errors.Is(err, ErrSessionFailed) || !errors.Is(err, errDiskFull) || !errors.Is(err, errIO) {
		t.Fatalf("Append = %v, want ErrSessionFailed naming both causes", err)
	}
	_, err = s.Append(host.Event{Type: "two"})
	if !errors.Is(err, ErrSessionFailed) || s.Len() != 0 {
		t.Fatalf("Append on a failed session = %v (Len %d), want ErrSessionFailed and Len 0", err, s.Len())
	}
	// The torn half line is what a reopen cuts off.
	ff.truncErr = nil
	if err := d.CloseSession("w"); err != nil {
		t.Fatal(err)
	}
	assertReopens(t, d, "w", nil)
}

func TestFailedSyncFailsTheSession(t *testing.T) {
	d, ff, s := faultySession(t, "w", WithSyncPolicy(SyncEveryAppend))
	if _, err := s.Append(host.Event{Type: "one"}); err != nil {
		t.Fatal(err)
	}
	ff.syncErr = errIO
	_, err := s.Append(host.Event{Type: "two"})
	if !errors.Is(err, ErrSessionFailed) || !errors.Is(err, errIO) {
		t.Fatalf("Append = %v, want ErrSessionFailed wrapping the sync error", err)
	}
	if _, err := s.Append(host.Event{Type: "three"}); !errors.Is(err, ErrSessionFailed) {
		t.Fatalf("Append after a failed sync = %v, want ErrSessionFailed", err)
	}
	if err := d.CloseSession("w"); err != nil {
		t.Fatal(err)
	}
	assertReopens(t, d, "w", s.Events().Slice())
}

func TestSyncPolicyCounts(t *testing.T) {
	tests := []struct {
		give      SyncPolicy
		wantSyncs int // for 3 plain appends, one turn/end, then close
	}{
		{SyncEveryAppend, 4 + 1},
		{SyncTurnEnd, 1 + 1},
		{SyncNever, 0},
		{SyncGroup, 1 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.give.String(), func(t *testing.T) {
			d, ff, s := faultySession(t, "p", WithSyncPolicy(tt.give))
			for _, typ := range []string{host.TypeTurnStart, host.TypeUserMessage, host.TypeAssistantMessage, host.TypeTurnEnd} {
				if _, err := s.Append(host.Event{Type: typ}); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.CloseSession("p"); err != nil {
				t.Fatal(err)
			}
			if ff.syncs != tt.wantSyncs {
				t.Errorf("%d syncs, want %d", ff.syncs, tt.wantSyncs)
			}
		})
	}
}

func assertReopens(t *testing.T, d *Dir, id string, want []host.Event) {
	t.Helper()
	d2, err := OpenDir(d.path)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	_ = d.CloseSession(id)
	s, err := d2.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Events().Slice()
	if len(got) != len(want) {
		t.Fatalf("reopened %d events, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Seq != want[i].Seq || got[i].Type != want[i].Type || !got[i].Time.Equal(want[i].Time) {
			t.Fatalf("reopened event %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestFailedGroupSyncFailsTheSession checks that under group commit a
// failed Sync is reported to its caller and fails the session, whose
// events stay as they were.
func TestFailedGroupSyncFailsTheSession(t *testing.T) {
	_, ff, s := faultySession(t, "g")
	if _, err := s.Append(host.Event{Type: "one"}); err != nil {
		t.Fatal(err)
	}
	ff.syncErr = errIO
	if err := host.Sync(s); !errors.Is(err, ErrSessionFailed) || !errors.Is(err, errIO) {
		t.Fatalf("Sync = %v, want ErrSessionFailed wrapping the sync error", err)
	}
	if _, err := s.Append(host.Event{Type: "two"}); !errors.Is(err, ErrSessionFailed) || s.Len() != 1 {
		t.Fatalf("Append after a failed Sync = %v (Len %d), want ErrSessionFailed and Len 1", err, s.Len())
	}
}

// TestGroupSyncIsShared checks that Sync flushes only what is new: a
// second Sync with no append between does no fsync, and appends alone do
// none.
func TestGroupSyncIsShared(t *testing.T) {
	_, ff, s := faultySession(t, "g")
	for range 6 {
		if _, err := s.Append(host.Event{Type: "step/x"}); err != nil {
			t.Fatal(err)
		}
	}
	if ff.syncs != 0 {
		t.Fatalf("%d fsyncs for 6 appends under group commit, want 0", ff.syncs)
	}
	for range 3 {
		if err := host.Sync(s); err != nil {
			t.Fatal(err)
		}
	}
	if ff.syncs != 1 {
		t.Fatalf("%d fsyncs for three Syncs with nothing appended between, want 1", ff.syncs)
	}
}
