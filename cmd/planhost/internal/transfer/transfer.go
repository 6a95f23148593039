// Package transfer reads sessions for planhost's inspect, export and
// import, and writes session files: a session file is read through the
// file store's own reader on a private copy, so the file itself is never
// changed (the store's reader repairs and locks what it opens), and every
// event is checked as the stores check an append. The copies live in
// private directories of the system's temporary directory; one that a
// killed process left behind is removed by the next transfer.
package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// Errors of the session files.
var (
	// ErrNotJSONL means a file to read is not a session file (*.jsonl).
	ErrNotJSONL = errors.New("not a session file: want a .jsonl file named after its session ID " +
		"(a session in PostgreSQL is named by its ID with -store postgres or -store URL)")
	// ErrNotRegular means something other than a regular file (a FIFO, a
	// device, a directory, a symbolic link) was found where a file is to be
	// read or written.
	ErrNotRegular = errors.New("not a regular file")
)

// Texts of the transfers.
const (
	noteRepair    = "; in %s's private copy only, the file itself is unchanged"
	errSessionIn  = "session %s not found in %s"
	errFileExists = "%s: %w; pass -force to replace it"
	errTorn       = "%s:%d: the last line is incomplete (a write that never finished); nothing was imported: " +
		"remove the line, or open the session once with planhost run, which cuts it off"
	privateDir = "sessions"
	// tempPrefix names the private directories in the system's temporary
	// directory; those of killed processes are swept (wiring.PrivateDir).
	tempPrefix = "planhost-private-"
)

// Source names where a session is read from: the store (-store) and the
// environment it reads a database URL from.
type Source struct {
	Store  string
	Getenv func(string) string
	// Log receives the repairs the file store makes on its private copy.
	Log io.Writer
}

// Load reads session arg for cmd (inspect, export): with the file store
// (Store "" or "file") arg is a session file, read on a private copy; with
// another store it is a session ID. The payload checks of planhost's
// plugins run on every event. usage is true when the error is the user's
// arguments.
func Load(cmd string, src Source, arg string) (id string, events host.Log, usage bool, err error) {
	if src.Store == "" || src.Store == wiring.StoreFile {
		id, events, err = readFile(arg, cmd, src.Log)
		usage = errors.Is(err, ErrNotJSONL) || errors.Is(err, host.ErrBadSessionID) || errors.Is(err, ErrNotRegular)
		return id, events, usage, err
	}
	if err := store.ValidateID(arg); err != nil {
		return "", host.Log{}, true, fmt.Errorf("%s: %w", arg, err)
	}
	sessions, usage, err := wiring.OpenStore(src.Store, "", src.Getenv, 0, nil)
	if err != nil {
		return "", host.Log{}, usage, err
	}
	defer sessions.Close()
	if err := wiring.AddPayloadChecks(sessions); err != nil {
		return "", host.Log{}, false, err
	}
	sess, err := sessions.Open(arg)
	if errors.Is(err, host.ErrSessionNotFound) {
		return "", host.Log{}, true, fmt.Errorf(errSessionIn, arg, sessions.Where(""))
	}
	if err != nil {
		return "", host.Log{}, false, err
	}
	return sess.ID(), sess.Events(), false, nil
}

// readFile reads a session file for cmd through the durable store, on a
// private copy so that the file itself is never changed (the store repairs
// a torn tail and tightens file modes when it opens a session). The payload
// checks run on every event.
func readFile(file, cmd string, log io.Writer) (id string, events host.Log, err error) {
	base := filepath.Base(file)
	id, ok := strings.CutSuffix(base, store.FileExt)
	if !ok {
		return "", host.Log{}, fmt.Errorf("%s: %w", file, ErrNotJSONL)
	}
	if err := store.ValidateID(id); err != nil {
		return "", host.Log{}, fmt.Errorf("%s: %w", file, err)
	}
	tmp, release, err := wiring.PrivateDir(os.TempDir(), tempPrefix, cmd+"-")
	if err != nil {
		return "", host.Log{}, err
	}
	defer release()
	copyDir := filepath.Join(tmp, privateDir)
	copyPath := filepath.Join(copyDir, id+store.FileExt)
	// A repair of the copy is shown, naming the user's file.
	repairs := wiring.RepairLogger(log, cmd, fmt.Sprintf(noteRepair, cmd), func(p string) string {
		return strings.ReplaceAll(p, copyPath, file)
	})
	dir, err := store.OpenDir(copyDir, store.WithLogger(repairs))
	if err != nil {
		return "", host.Log{}, err
	}
	defer dir.Close()
	if err := copyFile(file, dir.Path(id)); err != nil {
		return "", host.Log{}, err
	}
	if err := wiring.AddPayloadChecks(dir); err != nil {
		return "", host.Log{}, err
	}
	sess, err := dir.Open(id)
	if pe, ok := errors.AsType[*wiring.PayloadError](err); ok {
		// The plugin's words name the event: say only where it is.
		return "", host.Log{}, fmt.Errorf("%s:%d: %w", file, pe.Seq, pe)
	}
	if err != nil {
		// Name the file the user gave, not the private copy.
		return "", host.Log{}, errors.New(strings.ReplaceAll(err.Error(), dir.Path(id), file))
	}
	return id, sess.Events(), nil
}

// copyFile copies the regular file src to a new file dst (mode 0600). src
// is opened once, without blocking, and must be a regular file (a FIFO
// would hang the copy, a link to /dev/zero would never end it); only the
// size its Stat gave is read, even if it grows meanwhile.
func copyFile(src, dst string) error {
	in, err := os.OpenFile(src, os.O_RDONLY|wiring.OpenNonblock, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s)", src, ErrNotRegular, info.Mode().Type())
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(in, info.Size())); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Encode returns events as the lines of a session file, written by the
// file store itself (each event checked as an append checks it, then
// encoded as the store encodes it).
func Encode(id string, events host.Log) ([]byte, error) {
	tmp, release, err := wiring.PrivateDir(os.TempDir(), tempPrefix, "export-")
	if err != nil {
		return nil, err
	}
	defer release()
	dir, err := store.OpenDir(filepath.Join(tmp, privateDir), store.WithSyncPolicy(store.SyncNever))
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

// WriteFile writes data to the file at path, whole or not at all: to a new
// file beside it, synced, then linked in place. An existing file is
// fs.ErrExist unless replace is true (then it is renamed over); something
// other than a regular file at path (a directory, a FIFO, a symbolic
// link) is ErrNotRegular and left alone.
func WriteFile(path string, data []byte, replace bool) error {
	info, err := os.Lstat(path)
	switch {
	case err == nil && !info.Mode().IsRegular():
		return fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, info.Mode().Type())
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

// ReadImport reads the session file to import with the file store's own
// reader, on a private copy (the file itself is never changed): a line
// that is not the next event of a log is an error naming the file and
// line, and so is a torn last line (a write that never finished), which
// the store would cut off when it opens the file.
func ReadImport(file string) (host.Log, error) {
	tmp, release, err := wiring.PrivateDir(os.TempDir(), tempPrefix, "import-")
	if err != nil {
		return host.Log{}, err
	}
	defer release()
	const id = "import"
	torn := &tornLines{}
	dir, err := store.OpenDir(filepath.Join(tmp, privateDir), store.WithLogger(slog.New(torn)))
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
		return host.Log{}, fmt.Errorf(errTorn, file, torn.line)
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
