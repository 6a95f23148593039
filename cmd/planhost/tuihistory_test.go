package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestHistoryFileKeepsMultiLineEntries protects the terminal's history:
// entries with newlines survive, and a file readline wrote still reads.
func TestHistoryFileKeepsMultiLineEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	if err := os.WriteFile(path, []byte("old readline line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"one", "two\nlines", `"quoted"`} {
		if err := appendHistory(path, e); err != nil {
			t.Fatal(err)
		}
	}
	got := loadHistory(path)
	if want := []string{"old readline line", "one", "two\nlines", `"quoted"`}; !slices.Equal(got, want) {
		t.Errorf("history = %q, want %q", got, want)
	}
}
