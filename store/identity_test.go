package store_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// TestReplacedSessionFileStopsAppends replaces or removes the file of an
// open session behind the store's back and checks that the next append
// fails, saying so, instead of writing into a file nobody can find.
func TestReplacedSessionFileStopsAppends(t *testing.T) {
	tests := []struct {
		name    string
		replace func(t *testing.T, path string)
		want    string
	}{
		{"renamed over", func(t *testing.T, path string) {
			other := filepath.Join(filepath.Dir(path), "other")
			if err := os.WriteFile(other, []byte("someone else's\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}, "another file is now at its path"},
		{"removed", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, "the file is gone"},
		{"moved away", func(t *testing.T, path string) {
			if err := os.Rename(path, path+".bak"); err != nil {
				t.Fatal(err)
			}
		}, "the file is gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := openDir(t, sessionsDir(t))
			s := mustCreate(t, d, "s")
			want := appendN(t, s, 2)
			path := d.Path("s")
			tt.replace(t, path)
			before, _ := os.ReadFile(path)
			// An append does not look at the path; the sync that would
			// make it durable does, and fails.
			e, err := s.Append(host.Event{Type: "test/lost"})
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, e)
			err = s.(host.Syncer).Sync()
			for i := range 3 {
				wantErrIs(t, err, store.ErrFileReplaced)
				if !strings.Contains(err.Error(), "session file was replaced or removed") || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error %q does not say the session file was replaced (%s)", err, tt.want)
				}
				if i < 2 {
					_, err = s.Append(host.Event{Type: "test/lost"})
				}
			}
			wantEvents(t, s.Events().Slice(), want)
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Errorf("the file now at the path changed:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// TestHardLinkedSessionFileIsRefused checks that a session file with a
// second hard link is not opened, and that an open session whose file
// gains one takes no more appends.
func TestHardLinkedSessionFileIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Log("link counts are not checked on " + runtime.GOOS)
		return
	}
	dir := sessionsDir(t)
	d := openDir(t, dir)
	s := mustCreate(t, d, "s")
	appendN(t, s, 1)
	link := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	if err := os.Link(d.Path("s"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(host.Event{Type: "test/x"}); err != nil {
		t.Fatal(err)
	}
	err := s.(host.Syncer).Sync()
	wantErrIs(t, err, store.ErrHardLinked)
	_, err = s.Append(host.Event{Type: "test/x"})
	wantErrIs(t, err, store.ErrHardLinked)
	if err := d.Close(); err != nil {
		t.Logf("Close: %v", err)
	}

	d = openDir(t, dir)
	_, err = d.Open("s")
	wantErrIs(t, err, store.ErrHardLinked)
	if !strings.Contains(err.Error(), d.Path("s")+": 2 links") {
		t.Errorf("error %q does not name the file and its link count", err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if s := mustOpen(t, d, "s"); s.Len() != 2 {
		t.Errorf("Len = %d after the other link was removed, want 2", s.Len())
	}
}
