package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/store"
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

// loadSession reads session arg of the store -store names (for inspect
// and export): with the file store (storeValue "" or "file") arg is
// a session file, read as inspect reads one (readSession); with another
// store it is a session ID. The plan-mode payload checks run on every
// event. usage is true when the error is the user's arguments.
func (p *program) loadSession(storeValue, arg string) (id string, events host.Log, usage bool, err error) {
	if storeValue == "" || storeValue == storeFile {
		id, events, err = readSession(arg, p.stderr)
		usage = errors.Is(err, errNotJSONL) || errors.Is(err, host.ErrBadSessionID) || errors.Is(err, errNotRegular)
		return id, events, usage, err
	}
	if err := store.ValidateID(arg); err != nil {
		return "", host.Log{}, true, fmt.Errorf("%s: %w", arg, err)
	}
	sessions, usage, err := p.openStore(storeValue, "")
	if err != nil {
		return "", host.Log{}, usage, err
	}
	defer sessions.Close()
	for name, check := range payloadChecks() {
		if _, err := sessions.AddValidator(name, check); err != nil {
			return "", host.Log{}, false, err
		}
	}
	sess, err := sessions.Open(arg)
	if errors.Is(err, host.ErrSessionNotFound) {
		return "", host.Log{}, true, fmt.Errorf(errSessionNotIn, arg, sessions.where(""))
	}
	if err != nil {
		return "", host.Log{}, false, err
	}
	return sess.ID(), sess.Events(), false, nil
}

// payloadChecks are the validators of the payloads planhost's plugins
// record, which every session planhost reads for the user passes.
func payloadChecks() map[string]host.Validator {
	return map[string]host.Validator{
		planmode.PluginName:  planmode.CheckPayload,
		plansteps.PluginName: plansteps.CheckPayload,
	}
}
