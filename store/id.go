package store

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/dshgo/planmode/host"
)

// MaxIDLen is the longest session ID accepted.
const MaxIDLen = 128

// ValidateID reports whether id can name a session: 1 to MaxIDLen bytes of
// ASCII letters, digits, '-' and '_', not starting with '-', and not a
// Windows device name (con, prn, aux, nul, com0-com9, lpt0-lpt9, in any
// case). Such an ID can never name a path outside a sessions directory, on
// any operating system. A bad ID is host.ErrBadSessionID.
func ValidateID(id string) error {
	if id == "" || len(id) > MaxIDLen || id[0] == '-' {
		return fmt.Errorf("store: session id %q: %w", id, host.ErrBadSessionID)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("store: session id %q: %w", id, host.ErrBadSessionID)
		}
	}
	if isDeviceName(id) {
		return fmt.Errorf("store: session id %q: reserved device name: %w", id, host.ErrBadSessionID)
	}
	return nil
}

// isDeviceName reports whether id is a name Windows maps to a device even
// with an extension ("nul.jsonl" is the null device).
func isDeviceName(id string) bool {
	switch strings.ToLower(id) {
	case "con", "prn", "aux", "nul":
		return true
	}
	if len(id) == 4 && id[3] >= '0' && id[3] <= '9' {
		p := strings.ToLower(id[:3])
		return p == "com" || p == "lpt"
	}
	return false
}

// NewID returns a fresh random session ID (32 hex digits).
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails since Go 1.24
	return hex.EncodeToString(b[:])
}
