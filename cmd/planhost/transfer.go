package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/pgstore"
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

// loadSession reads session arg of the store -store names for cmd
// (inspect, export): with the file store (storeValue "" or "file") arg is
// a session file, read as inspect reads one (readSession); with another
// store it is a session ID. The plan-mode payload checks run on every
// event. usage is true when the error is the user's arguments.
func (p *program) loadSession(cmd, storeValue, arg string) (id string, events host.Log, usage bool, err error) {
	if storeValue == "" || storeValue == storeFile {
		id, events, err = readSession(arg, cmd, p.stderr)
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

// eventError is an event a store refused to import: seq is its place in
// the log, which is its line in a session file.
type eventError struct {
	seq uint64
	err error
}

func (e *eventError) Error() string { return e.err.Error() }

func (e *eventError) Unwrap() error { return e.err }

// importLog stores events as session id of the sessions directory: they
// are written to a file in a private directory inside it, each checked as
// an append checks it, made durable, and only then linked in place (or,
// with replace, renamed over an existing file), so a failure at any point
// leaves no session behind. A session to replace that another store holds
// open is refused with who holds it.
func (f fileStore) importLog(id string, events host.Log, replace bool) error {
	dir := filepath.Dir(f.Path("x"))
	if _, err := os.Lstat(f.Path(id)); err == nil && !replace {
		return fmt.Errorf("%s: %w", f.Path(id), host.ErrSessionExists)
	}
	if replace {
		// A session another planhost has open is not replaced under it.
		// (One that cannot be opened, being corrupt, can be.)
		if _, err := f.Open(id); errors.Is(err, store.ErrLocked) {
			return err
		} else if err == nil {
			if err := f.CloseSession(id); err != nil {
				return err
			}
		}
	}
	tmp, err := os.MkdirTemp(dir, importDirPrefix)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	staged, err := store.OpenDir(tmp, store.WithSyncPolicy(store.SyncNever))
	if err != nil {
		return err
	}
	defer staged.Close()
	for name, check := range payloadChecks() {
		if _, err := staged.AddValidator(name, check); err != nil {
			return err
		}
	}
	sess, err := staged.Create(id)
	if err != nil {
		return err
	}
	for _, e := range events.All() {
		if _, err := sess.Append(e); err != nil {
			return &eventError{seq: e.Seq, err: err}
		}
	}
	if err := staged.Close(); err != nil {
		return err
	}
	if err := syncFile(staged.Path(id)); err != nil {
		return err
	}
	if replace {
		err = os.Rename(staged.Path(id), f.Path(id))
	} else {
		err = os.Link(staged.Path(id), f.Path(id))
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %w", f.Path(id), host.ErrSessionExists)
	}
	if err != nil || runtime.GOOS == "windows" {
		return err // directories cannot be synced there
	}
	return syncFile(dir)
}

// importDirPrefix names the private directory an import into a sessions
// directory stages its file in.
const importDirPrefix = ".import-"

// syncFile makes the file or directory at path durable.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// importLog stores events as session id in one transaction.
func (p pgStore) importLog(id string, events host.Log, replace bool) error {
	err := p.Import(id, events, replace)
	if ie, ok := errors.AsType[*pgstore.ImportError](err); ok {
		return &eventError{seq: ie.Seq, err: ie.Err}
	}
	if errors.Is(err, host.ErrSessionExists) {
		return fmt.Errorf("%s in %s: %w", id, p.label, host.ErrSessionExists)
	}
	return err
}

// exportFlags are the flags of "planhost export".
type exportFlags struct {
	store, out string
	force      bool
}

// export is "planhost export": write a session of any store as a session
// file.
func (p *program) export(args []string) int {
	set := flag.NewFlagSet("export", flag.ContinueOnError)
	var f exportFlags
	set.StringVar(&f.store, "store", storeFile, flagSourceStoreHelp)
	set.StringVar(&f.out, "o", "", flagExportOutHelp)
	set.BoolVar(&f.force, "force", false, flagExportForceHelp)
	if code, done := p.parseFlags(set, usageExport, args); done {
		return code
	}
	switch {
	case set.NArg() == 0:
		fmt.Fprintf(p.stderr, errNeedSession, "export")
		return exitUsage
	case set.NArg() > 1:
		return p.extraArgs("export", set.Args()[1:])
	case f.out == "" && p.stdoutTerminal():
		return p.usageError("export", errors.New(errExportToTerminal))
	}
	id, events, usage, err := p.loadSession("export", f.store, set.Arg(0))
	switch {
	case usage:
		return p.usageError("export", err)
	case err != nil:
		return p.fail("export", err)
	}
	data, err := encodeSession(id, events)
	if err != nil {
		return p.fail("export", err)
	}
	if f.out == "" {
		if _, err := p.stdout.Write(data); err != nil {
			return p.fail("export", err)
		}
		return exitOK
	}
	err = writeNewFile(f.out, data, f.force)
	switch {
	case errors.Is(err, errNotRegular), errors.Is(err, fs.ErrExist):
		return p.usageError("export", err)
	case err != nil:
		return p.fail("export", err)
	}
	fmt.Fprintf(p.stderr, lineExported, id, events.Len(), f.out)
	return exitOK
}

// stdoutTerminal reports whether stdout is a terminal, where a session's
// raw text must not go.
func (p *program) stdoutTerminal() bool {
	out, ok := p.stdout.(*os.File)
	return ok && term.IsTerminal(out.Fd())
}

// encodeSession returns events as the lines of a session file, written by
// the file store itself (each event checked as an append checks it, then
// encoded as the store encodes it).
func encodeSession(id string, events host.Log) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "planhost-export-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dir, err := store.OpenDir(filepath.Join(tmp, sessionsDirName), store.WithSyncPolicy(store.SyncNever))
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	sess, err := dir.Create(id)
	if err != nil {
		return nil, err
	}
	for _, e := range events.All() {
		if _, err := sess.Append(e); err != nil {
			return nil, fmt.Errorf("event %d: %w", e.Seq, err)
		}
	}
	if err := dir.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(dir.Path(id))
}

// writeNewFile writes data to the file at path, whole or not at all: to a
// new file beside it, synced, then linked in place. An existing file is
// fs.ErrExist unless replace is true (then it is renamed over); something
// other than a regular file at path (a directory, a FIFO, a symbolic
// link) is errNotRegular and left alone.
func writeNewFile(path string, data []byte, replace bool) error {
	info, err := os.Lstat(path)
	switch {
	case err == nil && !info.Mode().IsRegular():
		return fmt.Errorf("%s: %w (%s)", path, errNotRegular, info.Mode().Type())
	case err == nil && !replace:
		return fmt.Errorf(errFileExists, path, fs.ErrExist)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if replace {
		err = os.Rename(tmp, path)
	} else {
		err = os.Link(tmp, path)
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf(errFileExists, path, fs.ErrExist)
	}
	return err
}

// importFlags are the flags of "planhost import".
type importFlags struct {
	store, sessions, session string
	replace                  bool
}

// importCmd is "planhost import": load a session file into a store.
func (p *program) importCmd(args []string) int {
	set := flag.NewFlagSet("import", flag.ContinueOnError)
	stateDir, stateErr := p.stateDir()
	shownState := stateDir
	if stateErr != nil {
		shownState = filepath.Join("$HOME", ".local", "state")
	}
	var f importFlags
	set.StringVar(&f.store, "store", storeFile, flagStoreHelp)
	set.StringVar(&f.sessions, "sessions", "", fmt.Sprintf(flagSessionsHelp, filepath.Join(shownState, appDirName, sessionsDirName)))
	set.StringVar(&f.session, "session", "", flagImportSessionHelp)
	set.BoolVar(&f.replace, "replace", false, flagImportReplaceHelp)
	if code, done := p.parseFlags(set, usageImport, args); done {
		return code
	}
	switch {
	case set.NArg() == 0:
		fmt.Fprintf(p.stderr, errNeedSession, "import")
		return exitUsage
	case set.NArg() > 1:
		return p.extraArgs("import", set.Args()[1:])
	}
	file := set.Arg(0)
	id := f.session
	if id == "" {
		base, ok := strings.CutSuffix(filepath.Base(file), store.FileExt)
		if !ok {
			return p.usageError("import", fmt.Errorf("%s: %w; or name the session with -session ID", file, errNotJSONL))
		}
		id = base
	}
	if err := store.ValidateID(id); err != nil {
		return p.usageError("import", fmt.Errorf("%s: %w", id, err))
	}
	if f.store == storeFile && f.sessions == "" {
		if stateErr != nil {
			return p.usageError("import", stateErr)
		}
		f.sessions = filepath.Join(stateDir, appDirName, sessionsDirName)
	}
	events, err := readImportFile(file)
	switch {
	case errors.Is(err, errNotRegular), errors.Is(err, fs.ErrNotExist):
		return p.usageError("import", err)
	case err != nil:
		return p.fail("import", err)
	}
	sessions, usage, err := p.openStore(f.store, f.sessions)
	if usage {
		return p.usageError("import", err)
	} else if err != nil {
		return p.fail("import", err)
	}
	defer sessions.Close()
	for name, check := range payloadChecks() {
		if _, err := sessions.AddValidator(name, check); err != nil {
			return p.fail("import", err)
		}
	}
	err = sessions.importLog(id, events, f.replace)
	if ee, ok := errors.AsType[*eventError](err); ok {
		return p.fail("import", fmt.Errorf("%s:%d: %w", file, ee.seq, ee.err))
	}
	switch {
	case errors.Is(err, host.ErrSessionExists):
		return p.usageError("import", fmt.Errorf(errImportExists, err))
	case err != nil:
		return p.fail("import", err)
	}
	fmt.Fprintf(p.stderr, lineImported, file, events.Len(), id, sessions.where(id))
	return exitOK
}

// readImportFile reads the session file to import with the file store's
// own reader, on a private copy (the file itself is never changed): a
// line that is not the next event of a log is an error naming the file
// and line, and so is a torn last line (a write that never finished),
// which the store would cut off when it opens the file.
func readImportFile(file string) (host.Log, error) {
	tmp, err := os.MkdirTemp("", "planhost-import-")
	if err != nil {
		return host.Log{}, err
	}
	defer os.RemoveAll(tmp)
	const id = "import"
	torn := &tornLines{}
	dir, err := store.OpenDir(filepath.Join(tmp, sessionsDirName), store.WithLogger(slog.New(torn)))
	if err != nil {
		return host.Log{}, err
	}
	defer dir.Close()
	if err := copyFile(file, dir.Path(id)); err != nil {
		return host.Log{}, err
	}
	sess, err := dir.Open(id)
	if err != nil {
		// Name the file the user gave, not the private copy.
		return host.Log{}, errors.New(strings.ReplaceAll(err.Error(), dir.Path(id), file))
	}
	if torn.line > 0 {
		return host.Log{}, fmt.Errorf(errImportTorn, file, torn.line)
	}
	return sess.Events(), nil
}

// tornLines records the torn last line a store cut off while opening a
// file.
type tornLines struct{ line int64 }

func (*tornLines) Enabled(context.Context, slog.Level) bool { return true }

func (t *tornLines) Handle(_ context.Context, r slog.Record) error {
	if r.Message != store.LogTornLine {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "line" {
			t.line = a.Value.Int64()
		}
		return true
	})
	return nil
}

func (t *tornLines) WithAttrs([]slog.Attr) slog.Handler { return t }

func (t *tornLines) WithGroup(string) slog.Handler { return t }
