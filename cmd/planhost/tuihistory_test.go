package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
)

// TestHistoryFileKeepsMultiLineEntries protects the terminal's history:
// entries with newlines survive, and a file readline wrote still reads.
func TestHistoryFileKeepsMultiLineEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	if err := os.WriteFile(path, []byte("old readline line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"one", "two\nlines", `"quoted"`} {
		if err := wiring.AppendHistory(path, e); err != nil {
			t.Fatal(err)
		}
	}
	got := wiring.LoadHistory(path)
	if want := []string{"old readline line", "one", "two\nlines", `"quoted"`}; !slices.Equal(got, want) {
		t.Errorf("history = %q, want %q", got, want)
	}
}

// FuzzHistoryRoundTrip checks that any entry the user sends comes back from
// the history file as it was (multi-line, quoted or not), and that reading
// any file content never fails or returns a blank entry.
func FuzzHistoryRoundTrip(f *testing.F) {
	for _, s := range []string{"one", "two\nlines", `"quoted"`, "\"unterminated", "tab\there", "\x00\x1b[2J", "  "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dir := t.TempDir()
		raw := filepath.Join(dir, "raw")
		if err := os.WriteFile(raw, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, e := range wiring.LoadHistory(raw) {
			if strings.TrimSpace(e) == "" {
				t.Fatalf("blank entry from %q", s)
			}
		}
		path := filepath.Join(dir, "history")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := wiring.AppendHistory(path, s); err != nil {
			t.Fatal(err)
		}
		got := wiring.LoadHistory(path)
		if strings.TrimSpace(s) == "" {
			if len(got) != 0 {
				t.Fatalf("blank entry kept: %q", got)
			}
			return
		}
		if len(got) != 1 || got[0] != s {
			t.Fatalf("history of %q = %q", s, got)
		}
	})
}
