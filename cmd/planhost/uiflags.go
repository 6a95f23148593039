package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/store"
)

// Where the terminal session logs, and how much of a resumed session the
// recap shows.
const (
	logFileName  = "planhost.log"
	logFilePerm  = 0o600
	recapEntries = 6
)

// uiFlags are the flags of "planhost run" for the terminal and streaming.
type uiFlags struct {
	stream  bool
	lang    string
	cont    bool
	verbose bool
}

func (u *uiFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&u.stream, "stream", true, flagStreamHelp)
	fs.StringVar(&u.lang, "lang", "", flagLangHelp)
	fs.BoolVar(&u.cont, "continue", false, flagContinueHelp)
	fs.BoolVar(&u.verbose, "verbose", false, flagVerboseHelp)
}

// resolveSession turns -session (an ID, or a session file's path ending in
// .jsonl) into the session ID and its directory, and refuses -session with
// -continue (see continueSession).
func (f *runFlags) resolveSession() error {
	switch {
	case f.ui.cont && f.session != "":
		return errors.New(errContinueAndSession)
	case f.ui.cont, f.session == "":
		return nil
	case strings.HasSuffix(f.session, store.FileExt):
		dir, base := filepath.Split(f.session)
		id := strings.TrimSuffix(base, store.FileExt)
		if err := store.ValidateID(id); err != nil {
			return fmt.Errorf("-session %s: %w", f.session, err)
		}
		if dir != "" {
			f.sessions = filepath.Clean(dir)
		}
		f.session = id
		return nil
	}
	if err := store.ValidateID(f.session); err != nil {
		return fmt.Errorf("-session: %w", err)
	}
	return nil
}

// continueSession finds the session -continue names in the file store,
// once the sessions directory is settled, before the store makes the
// directory. Another store is asked once it is open.
func (f *runFlags) continueSession() error {
	if !f.ui.cont || f.store != storeFile {
		return nil
	}
	id, err := latestSession(f.sessions)
	if err != nil {
		return fmt.Errorf("-continue: %w", err)
	}
	f.session = id
	return nil
}

// latestSession is the ID of the most recently changed session file in dir.
func latestSession(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var best string
	var bestTime time.Time
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, store.FileExt) {
			continue
		}
		id := strings.TrimSuffix(name, store.FileExt)
		if store.ValidateID(id) != nil {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if best == "" || info.ModTime().After(bestTime) {
			best, bestTime = id, info.ModTime()
		}
	}
	if best == "" {
		return "", fmt.Errorf(errNoSessions, dir)
	}
	return best, nil
}

// runLogger is the host's logger: warnings go to a log file in the state
// directory (which a terminal session needs; stateDir is "" when there is
// none) when the terminal UI runs (so that they never break the
// screen; the UI shows turn errors itself), to stderr over pipes.
func (p *program) runLogger(stateDir string) (*slog.Logger, func(), error) {
	opts := &slog.HandlerOptions{Level: slog.LevelWarn}
	if !p.terminal() {
		return slog.New(withoutTurnErrors{slog.NewTextHandler(p.stderr, opts)}), func() {}, nil
	}
	if stateDir == "" {
		return nil, nil, errors.New(errNoStateDir)
	}
	// The history file's checks (a private directory of this user) hold
	// for the log beside it.
	history, err := openHistoryFile(stateDir)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(filepath.Join(filepath.Dir(history), logFileName), os.O_WRONLY|os.O_CREATE|os.O_APPEND|openNoFollow, logFilePerm)
	if err != nil {
		return nil, nil, err
	}
	var w io.Writer = f
	return slog.New(slog.NewTextHandler(w, opts)), func() { f.Close() }, nil
}

// logTurnFailed is the message refhost logs a failed turn with; the
// transcript reports the turn's end with its error already.
const logTurnFailed = "refhost: turn failed"

// withoutTurnErrors drops the log records of failed turns, so that a turn
// error is shown once (by the transcript), not twice.
type withoutTurnErrors struct{ slog.Handler }

func (h withoutTurnErrors) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == logTurnFailed {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h withoutTurnErrors) WithAttrs(as []slog.Attr) slog.Handler {
	return withoutTurnErrors{h.Handler.WithAttrs(as)}
}

func (h withoutTurnErrors) WithGroup(name string) slog.Handler {
	return withoutTurnErrors{h.Handler.WithGroup(name)}
}

// endpointShown is the base URL as the user may see it: no user info,
// query or fragment.
func endpointShown(base string) string {
	if base == "" {
		base = openaimodel.DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
