package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/dshgo/planmode/host"
)

// latest is the newest session file in the sessions directory.
func (f fileStore) latest() (string, error) { return latestSession(filepath.Dir(f.Path("x"))) }

// latest is the session of the database changed last.
func (p pgStore) latest() (string, error) {
	id, err := p.Latest()
	if errors.Is(err, host.ErrSessionNotFound) {
		return "", fmt.Errorf(errNoSessions, p.label)
	}
	return id, err
}
