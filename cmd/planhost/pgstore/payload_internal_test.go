package pgstore

import (
	"strconv"
	"strings"
	"testing"
)

func TestParsePayload(t *testing.T) {
	tests := []struct {
		in     string
		id     string
		n      int64
		wantOK bool
	}{
		{"abc 12", "abc", 12, true},
		{"a-b_c 1", "a-b_c", 1, true},
		{"abc", "", 0, false},
		{"abc x", "", 0, false},
		{"abc 1 2", "", 0, false},
		{"", "", 0, false},
	}
	for _, tt := range tests {
		id, n, ok := parsePayload(tt.in)
		if ok != tt.wantOK || ok && (id != tt.id || n != tt.n) {
			t.Errorf("parsePayload(%q) = %q, %d, %v; want %q, %d, %v", tt.in, id, n, ok, tt.id, tt.n, tt.wantOK)
		}
	}
}

// FuzzParsePayload: a notification payload comes from the database, where
// any client of the channel can send one; parsing never panics, and what
// it accepts names a session and a length that the payload spells out.
func FuzzParsePayload(f *testing.F) {
	for _, s := range []string{"abc 12", "x 0", "", " ", "a b c", "id -1", "id 99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		id, n, ok := parsePayload(p)
		if !ok {
			return
		}
		rest, found := strings.CutPrefix(p, id+" ")
		if !found {
			t.Fatalf("accepted %q as session %q", p, id)
		}
		if m, err := strconv.ParseInt(rest, 10, 64); err != nil || m != n {
			t.Fatalf("accepted %q as length %d", p, n)
		}
	})
}
