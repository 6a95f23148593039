package store

import (
	"fmt"

	"github.com/dshgo/planmode/host"
)

// MaxIDLen is the longest session ID accepted.
const MaxIDLen = 128

// ValidateID reports whether id can name a session: 1 to MaxIDLen bytes of
// ASCII letters, digits, '-' and '_', not starting with '-'. Such an ID can
// never name a path outside a sessions directory.
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
	return nil
}

var (
	_ host.Store   = (*Memory)(nil)
	_ host.Session = (*session)(nil)
)
