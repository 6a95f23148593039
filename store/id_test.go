package store_test

import (
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// badIDs are session IDs every store must refuse.
func badIDs() []string {
	return []string{
		"", ".", "..", "../x", "..\\x", "a/b", "a\\b", "/etc/passwd", "/tmp/x", "C:x",
		"a\x00b", "\x00", strings.Repeat("a", store.MaxIDLen+1), "héllo", "日本", "a.b", "a b",
		"-x", "x.jsonl", "con", "NUL", "Aux", "prn", "com1", "LPT9", "~", "a\n",
	}
}

func TestValidateID(t *testing.T) {
	for _, give := range badIDs() {
		t.Run("refuses "+strings.ToValidUTF8(give, "?"), func(t *testing.T) {
			wantErrIs(t, store.ValidateID(give), host.ErrBadSessionID)
		})
	}
	good := []string{"a", "A", "0", "a-b_c", "_x", strings.Repeat("z", store.MaxIDLen), "console", "com10", "lpt", "nul1x", store.NewID()}
	for _, give := range good {
		t.Run("accepts "+give, func(t *testing.T) {
			if err := store.ValidateID(give); err != nil {
				t.Fatalf("ValidateID(%q) = %v", give, err)
			}
		})
	}
}

func TestNewIDIsFresh(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := store.NewID()
		if len(id) != 32 || seen[id] {
			t.Fatalf("NewID() = %q: want 32 hex digits, never repeated", id)
		}
		seen[id] = true
	}
}
