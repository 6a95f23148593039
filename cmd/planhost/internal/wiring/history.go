package wiring

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// Modes of what planhost keeps in its state directory, and its files
// there.
const (
	historyFilePerm = 0o600
	privateDirPerm  = 0o700
	historyFileName = "history"
	logFileName     = "planhost.log"
)

// Texts of the state directory and the history file.
const (
	errHistory         = "history file: %s: %w"
	errHistoryDirKind  = "history file: %s is not a directory"
	errHistoryDirOwner = "history file: %s belongs to another user"
	errHistoryDirMode  = "history file: %s has mode %#o, which lets other users in; run: chmod 700 %s"
	errHistoryFileKind = "history file: %s is not a regular file"
	// ErrNoStateDir: neither HOME nor XDG_STATE_HOME names a directory.
	errNoStateDir = "no state directory: HOME and XDG_STATE_HOME are unset (set one, or pass -sessions DIR; the terminal needs one for its history)"
)

// StateDir is the user's state directory: $XDG_STATE_HOME, else
// ~/.local/state (getenv reads them). With neither variable set to an
// absolute path there is none: planhost never falls back to a directory
// other users share.
func StateDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	if home := getenv("HOME"); filepath.IsAbs(home) {
		return filepath.Join(home, ".local", "state"), nil
	}
	return "", errors.New(errNoStateDir)
}

// Logger is the host's logger: warnings go to a log file beside the
// history in the state directory when the terminal UI runs (so that they
// never break the screen; the UI shows turn errors itself; stateDir is ""
// when there is none), to stderr over pipes, without the failed turns the
// transcript reports already. close closes the file.
func Logger(terminal bool, stderr io.Writer, stateDir string) (logger *slog.Logger, close func(), err error) {
	opts := &slog.HandlerOptions{Level: slog.LevelWarn}
	if !terminal {
		return slog.New(withoutTurnErrors{slog.NewTextHandler(stderr, opts)}), func() {}, nil
	}
	if stateDir == "" {
		return nil, nil, errors.New(errNoStateDir)
	}
	// The history file's checks (a private directory of this user) hold
	// for the log beside it.
	history, err := OpenHistory(stateDir)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(filepath.Join(filepath.Dir(history), logFileName), os.O_WRONLY|os.O_CREATE|os.O_APPEND|OpenNoFollow, historyFilePerm)
	if err != nil {
		return nil, nil, err
	}
	return slog.New(slog.NewTextHandler(f, opts)), func() { f.Close() }, nil
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

// OpenHistory prepares the terminal history file in planhost's
// directory under stateDir and returns its path: the directory is created
// 0700, or, when it exists, must be a directory of this user that no one
// else may enter (it is not changed: the user is told how to fix it); the
// file is created 0600, and an existing one must be a regular file of this
// user and is tightened to 0600.
func OpenHistory(stateDir string) (string, error) {
	dir := filepath.Join(stateDir, AppDir)
	if err := os.MkdirAll(dir, privateDirPerm); err != nil {
		return "", fmt.Errorf(errHistory, dir, err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf(errHistory, dir, err)
	}
	switch {
	case !info.IsDir():
		return "", fmt.Errorf(errHistoryDirKind, dir)
	case !OwnedBySelf(info):
		return "", fmt.Errorf(errHistoryDirOwner, dir)
	case info.Mode().Perm()&0o077 != 0:
		return "", fmt.Errorf(errHistoryDirMode, dir, info.Mode().Perm(), dir)
	}
	path := filepath.Join(dir, historyFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|OpenNoFollow|OpenNonblock, historyFilePerm)
	if err != nil {
		return "", fmt.Errorf(errHistory, path, err)
	}
	defer f.Close()
	info, err = f.Stat()
	if err != nil {
		return "", fmt.Errorf(errHistory, path, err)
	}
	switch {
	case !info.Mode().IsRegular():
		return "", fmt.Errorf(errHistoryFileKind, path)
	case !OwnedBySelf(info):
		return "", fmt.Errorf(errHistoryDirOwner, path)
	case info.Mode().Perm() != historyFilePerm:
		if err := f.Chmod(historyFilePerm); err != nil {
			return "", fmt.Errorf(errHistory, path, err)
		}
	}
	return path, nil
}
