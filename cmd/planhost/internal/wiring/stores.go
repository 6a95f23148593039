package wiring

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// Values of -store.
const (
	StoreFile     = "file"
	storePostgres = "postgres"
	envDatabase   = "DATABASE_URL"
	// storeOpenTimeout bounds connecting and migrating at start.
	storeOpenTimeout = 30 * time.Second
)

// Texts of -store.
const (
	errStoreValue         = "-store %q: want file, postgres or a postgres:// URL"
	errStoreHidden        = "(value hidden: it may hold a password)"
	errStoreNoDatabaseURL = "-store postgres: %s is not set"
	lineStorePostgres     = "PostgreSQL database %s on %s"
	errNoSessions         = "no session in %s"
)

// Store is where planhost keeps sessions: a directory of files or a
// PostgreSQL database.
type Store interface {
	host.Store
	// Close releases the store.
	Close() error
	// Where names the place of session id for the user (never a
	// password); "" names the store.
	Where(id string) string
	// Documents opens the agent documents (the todo list) that go with
	// the sessions: the directory dir for the file store ("" keeps them in
	// memory), the same database for PostgreSQL.
	Documents(dir string) (host.Documents, error)
	// Latest is the ID of the session changed last, for -continue.
	Latest() (string, error)
	// Import stores events (numbered from 1) as session id, whole or not
	// at all; an existing session is host.ErrSessionExists unless
	// replace is true. A refused event is an *EventError.
	Import(id string, events host.Log, replace bool) error
}

// fileStore is the default store.
type fileStore struct{ *store.Dir }

func (fileStore) Documents(dir string) (host.Documents, error) { return OpenDocuments(dir) }

func (f fileStore) Where(id string) string {
	if id == "" {
		return filepath.Dir(f.Path("x"))
	}
	return f.Path(id)
}

// pgStore keeps sessions in PostgreSQL.
type pgStore struct {
	*pgstore.Store
	label string
}

func (p pgStore) Where(string) string { return p.label }

// Documents keeps the agent documents in the sessions' database, so that
// every planhost sharing it shares the agents' todo lists too.
func (p pgStore) Documents(string) (host.Documents, error) { return p.Store.Documents(), nil }

// OpenStore opens the store -store names: "file" (the default) keeps
// sessions in -sessions, opened with dirOpts (the staging directories
// killed imports left there are removed); "postgres" connects to
// $DATABASE_URL (getenv reads it); a postgres:// or postgresql:// URL
// connects there, with the turn lease expiring after leaseExpiry (0 keeps
// the store's default) and its warnings going to log (nil: none). Any
// other value is a usage error (usage true).
func OpenStore(value, sessionsDir string, getenv func(string) string, leaseExpiry time.Duration, log *slog.Logger, dirOpts ...store.Option) (s Store, usage bool, err error) {
	url := value
	switch {
	case value == StoreFile:
		d, err := store.OpenDir(sessionsDir, dirOpts...)
		if err != nil {
			return nil, false, err
		}
		// What imports killed while they staged left behind goes now.
		sweepPrivate(filepath.Dir(d.Path("x")), importDirPrefix)
		return fileStore{d}, false, nil
	case value == storePostgres:
		url = getenv(envDatabase)
		if url == "" {
			return nil, true, fmt.Errorf(errStoreNoDatabaseURL, envDatabase)
		}
	case strings.HasPrefix(value, "postgres://"), strings.HasPrefix(value, "postgresql://"):
	default:
		return nil, true, fmt.Errorf(errStoreValue, RedactDSN(value))
	}
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return nil, true, fmt.Errorf("-store: %w", err) // pgx masks the password
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeOpenTimeout)
	defer cancel()
	var opts []pgstore.Option
	if leaseExpiry != 0 {
		opts = append(opts, pgstore.WithLeaseExpiry(leaseExpiry))
	}
	if log != nil {
		opts = append(opts, pgstore.WithLogger(log))
	}
	st, err := pgstore.Open(ctx, url, opts...)
	if err != nil {
		return nil, false, err
	}
	return pgStore{Store: st, label: fmt.Sprintf(lineStorePostgres, cfg.Database, cfg.Host)}, false, nil
}

// passwordKV matches a password (or sslpassword) keyword of a
// keyword/value connection string in the spellings pgx's redaction leaves
// alone: any case, spaces around '=', a quoted value with escapes. It is
// applied to URLs too, where it may mask more than the password.
var passwordKV = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)`)

// pgxMask is the mask pgx puts in place of a password.
const pgxMask = "xxxxx"

// RedactDSN returns a -store value fit to show: its passwords masked the
// way pgx masks them in its own errors. A value that only looks like a
// postgres URL (another case, leading spaces, "postgresql:" without the
// slashes) is masked as one, and a keyword/value password is masked in any
// spelling. When pgx's masking cannot be used, nothing of the value is
// shown.
func RedactDSN(value string) string {
	trimmed := strings.TrimLeft(value, " \t\r\n\f\v")
	lower := strings.ToLower(trimmed)
	for _, scheme := range []string{"postgresql:", "postgres:"} {
		if strings.HasPrefix(lower, scheme) {
			rest := strings.TrimLeft(trimmed[len(scheme):], "/")
			r, ok := pgxRedact("postgresql://" + rest)
			if !ok {
				return errStoreHidden
			}
			return passwordKV.ReplaceAllString(value[:len(value)-len(rest)]+strings.TrimPrefix(r, "postgresql://"), "${1}"+pgxMask)
		}
	}
	r, ok := pgxRedact(value)
	if !ok {
		return errStoreHidden
	}
	return passwordKV.ReplaceAllString(r, "${1}"+pgxMask)
}

// pgxRedact masks the passwords of connection string s with pgx's own
// redaction (the text of its parse errors). It reports false when that
// text does not have the form it reads.
func pgxRedact(s string) (string, bool) {
	text := pgconn.NewParseConfigError(s, "", nil).Error()
	rest, ok := strings.CutPrefix(text, "cannot parse `")
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, "`: ")
	if i < 0 {
		return "", false
	}
	return rest[:i], true
}

// Latest is the newest session file in the sessions directory.
func (f fileStore) Latest() (string, error) { return LatestSession(filepath.Dir(f.Path("x"))) }

// Latest is the session of the database changed last.
func (p pgStore) Latest() (string, error) {
	id, err := p.Store.Latest()
	if errors.Is(err, host.ErrSessionNotFound) {
		return "", fmt.Errorf(errNoSessions, p.label)
	}
	return id, err
}

// LatestSession is the ID of the most recently changed session file in
// dir.
func LatestSession(dir string) (string, error) {
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

// OpenDocuments opens the documents directory dir; "" keeps the
// documents in memory.
func OpenDocuments(dir string) (host.Documents, error) {
	if dir == "" {
		return store.NewMemoryDocuments(), nil
	}
	docs, err := store.OpenDirDocuments(dir)
	if err != nil {
		return nil, fmt.Errorf("-documents: %w", err)
	}
	return docs, nil
}

// EventError is an event a store refused to import: Seq is its place in
// the log, which is its line in a session file.
type EventError struct {
	Seq uint64
	Err error
}

func (e *EventError) Error() string { return e.Err.Error() }

func (e *EventError) Unwrap() error { return e.Err }

// refusal is the error to show for an event a store refused with err: the
// payload check's own, when one refused it.
func refusal(err error) error {
	if pe, ok := errors.AsType[*PayloadError](err); ok {
		return pe
	}
	return err
}

// Import stores events as session id of the sessions directory: they are
// written to a file in a private directory inside it, each checked as an
// append checks it, made durable, and only then linked in place (or, with
// replace, renamed over an existing file), so a failure at any point
// leaves no session behind. A session to replace that another store holds
// open is refused with who holds it.
func (f fileStore) Import(id string, events host.Log, replace bool) error {
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
	tmp, unstage, err := PrivateDir(dir, importDirPrefix, "")
	if err != nil {
		return err
	}
	defer unstage()
	staged, err := store.OpenDir(tmp, store.WithSyncPolicy(store.SyncNever))
	if err != nil {
		return err
	}
	defer staged.Close()
	if err := AddPayloadChecks(staged); err != nil {
		return err
	}
	sess, err := staged.Create(id)
	if err != nil {
		return err
	}
	for _, e := range events.All() {
		if _, err := sess.Append(e); err != nil {
			return &EventError{Seq: e.Seq, Err: refusal(err)}
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

// PrivateDir makes a new directory in parent, named prefix, name and a
// random tail, for this process alone, and first removes the directories
// named prefix that processes killed while they used one left behind.
// The process holds a flock(2) on its directory until release, which
// removes it, so a directory that a sweep can lock belongs to no running
// process. The directory is made under a name no sweep matches (a dot
// before prefix) and takes its name once held, so a concurrent sweep
// never removes it in between. Where the system or file system has no
// flock(2), nothing is held or swept.
func PrivateDir(parent, prefix, name string) (path string, release func(), err error) {
	sweepPrivate(parent, prefix)
	hidden, err := os.MkdirTemp(parent, "."+prefix+name)
	if err != nil {
		return "", nil, err
	}
	path = filepath.Join(parent, filepath.Base(hidden)[1:])
	f, err := os.Open(hidden)
	if err != nil {
		os.RemoveAll(hidden)
		return "", nil, err
	}
	held := flock(f, false) == nil // nobody else knows the directory yet
	if err := os.Rename(hidden, path); err != nil {
		f.Close()
		os.RemoveAll(hidden)
		return "", nil, err
	}
	if !held { // no flock(2) here: nothing is held or swept
		f.Close()
		return path, func() { os.RemoveAll(path) }, nil
	}
	return path, func() {
		os.RemoveAll(path)
		f.Close() // lets go of the lock
	}, nil
}

// sweepPrivate removes the directories named prefix in parent that no
// running process holds (see PrivateDir). What is not this user's, or
// cannot be read or removed, is left alone.
func sweepPrivate(parent, prefix string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		path := filepath.Join(parent, e.Name())
		// Never follow a link, never wait on a FIFO swapped in since
		// ReadDir (another user may own a shared temp directory's names).
		f, err := os.OpenFile(path, os.O_RDONLY|OpenNoFollow|OpenNonblock, 0)
		if err != nil {
			continue
		}
		if info, err := f.Stat(); err == nil && info.IsDir() && OwnedBySelf(info) && flock(f, false) == nil {
			_ = os.RemoveAll(path)
		}
		f.Close()
	}
}

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

// Import stores events as session id in one transaction.
func (p pgStore) Import(id string, events host.Log, replace bool) error {
	err := p.Store.Import(id, events, replace)
	if ie, ok := errors.AsType[*pgstore.ImportError](err); ok {
		return &EventError{Seq: ie.Seq, Err: refusal(ie.Err)}
	}
	if errors.Is(err, host.ErrSessionExists) {
		return fmt.Errorf("%s in %s: %w", id, p.label, host.ErrSessionExists)
	}
	return err
}
