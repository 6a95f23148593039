package planfile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"
)

// FileName is the name of the plan file inside a session's directory.
const FileName = "plan.md"

// Modes of the private plan storage.
const (
	// DirMode is the mode of a session's plan directory.
	DirMode fs.FileMode = 0o700
	// FileMode is the mode of a plan file.
	FileMode fs.FileMode = 0o600
)

// tempPrefix starts the names of the temporary files a replace writes
// beside the plan file; a crash can leave one behind, and the next replace
// removes it.
const tempPrefix = ".plan-"

// tempSuffix ends the names of the temporary files.
const tempSuffix = ".tmp"

// Document is one read of a plan file.
type Document struct {
	// Content is the plan text: UTF-8 without NUL.
	Content string
	// Exists is false when the session has no plan file yet.
	Exists bool
}

// Store owns the private plan files of every session under one directory:
// <dir>/<session id>/plan.md. Every access goes through [os.Root]; the
// session directory must be a real directory of mode 0700 and the file a
// regular file of mode 0600 with one link. Symbolic links, hard-linked and
// non-regular files are refused with [ErrUnsafe], and each operation checks
// that the file it opened is the one the directory names before and after
// (a file swapped in meanwhile is [ErrSwapped], never followed). Content is
// UTF-8 without NUL and at most the store's byte limit. A replace is atomic:
// an exclusive temporary file, fsync, rename, directory fsync; creating a
// file never truncates one that exists. It is safe for concurrent use:
// operations on one session are serialized.
type Store struct {
	dir      string
	maxBytes int64

	mu    sync.Mutex
	locks map[string]*sync.Mutex

	// hook runs at named stages of an operation ("temp-written": after the
	// temporary file is synced, before the rename; "read-opened": after the
	// file is opened for reading, before it is read); tests use it to
	// simulate a crash or a swap.
	hook func(stage, sessionDir string) error
}

// NewStore returns the store for dir (an absolute path) with a size limit
// of maxBytes. It does no I/O: the directory is created on first use.
func NewStore(dir string, maxBytes int64) (*Store, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("%s: store: dir %q: %w", PluginName, dir, errNotAbsolute)
	}
	if maxBytes < MinMaxBytes || maxBytes > MaxMaxBytes {
		return nil, fmt.Errorf("%s: store: max bytes %d: %w", PluginName, maxBytes, errMaxBytesRange)
	}
	return &Store{dir: filepath.Clean(dir), maxBytes: maxBytes, locks: map[string]*sync.Mutex{}}, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Path returns the absolute path of a session's plan file, for the model
// and the user. It does no I/O.
func (s *Store) Path(session string) string { return filepath.Join(s.dir, session, FileName) }

// lock serializes the operations on one session.
func (s *Store) lock(session string) func() {
	s.mu.Lock()
	m, ok := s.locks[session]
	if !ok {
		m = new(sync.Mutex)
		s.locks[session] = m
	}
	s.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// Read returns the session's plan. A session without a plan file reads as
// a Document with Exists false.
func (s *Store) Read(ctx context.Context, session string) (Document, error) {
	defer s.lock(session)()
	d, err := s.openSession(session, false)
	if errors.Is(err, fs.ErrNotExist) {
		return Document{}, nil
	}
	if err != nil {
		return Document{}, err
	}
	defer d.close()
	return d.read(ctx)
}

// HasPlan reports whether the session's plan file exists and holds some
// non-space text; it checks the file as Read does.
func (s *Store) HasPlan(ctx context.Context, session string) (bool, error) {
	doc, err := s.Read(ctx, session)
	return strings.TrimSpace(doc.Content) != "", err
}

// Replace atomically replaces the session's plan with content, creating the
// session's directory and file when needed.
func (s *Store) Replace(ctx context.Context, session, content string) error {
	if err := s.Check(content); err != nil {
		return err
	}
	return s.in(session, func(d *sessionDir) error { return d.replace(ctx, content, false) })
}

// Seed creates an empty plan file when the session has none; an existing
// file (empty or not) is left as it is. It reports whether it created one.
func (s *Store) Seed(ctx context.Context, session string) (created bool, err error) {
	err = s.in(session, func(d *sessionDir) error { created, err = d.create(ctx, ""); return err })
	return created, err
}

// CopyTo gives session target a copy of session source's plan file when
// target has none. A source without a plan file is a successful no-op, and
// so is a target that already has one. It reports whether it copied.
func (s *Store) CopyTo(ctx context.Context, source, target string) (copied bool, err error) {
	if source == target {
		return false, nil
	}
	doc, err := s.Read(ctx, source)
	if err != nil || !doc.Exists {
		return false, err
	}
	err = s.in(target, func(d *sessionDir) error { copied, err = d.create(ctx, doc.Content); return err })
	return copied, err
}

// in runs fn on the session's directory, created when missing, under the
// session's lock.
func (s *Store) in(session string, fn func(d *sessionDir) error) error {
	defer s.lock(session)()
	d, err := s.openSession(session, true)
	if err != nil {
		return err
	}
	defer d.close()
	return fn(d)
}

// Check reports whether content may be stored: UTF-8 without NUL and at
// most the store's limit.
func (s *Store) Check(content string) error {
	switch {
	case int64(len(content)) > s.maxBytes:
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(content), s.maxBytes)
	case strings.IndexByte(content, 0) >= 0:
		return fmt.Errorf("%w: byte %d is NUL", ErrBadContent, strings.IndexByte(content, 0))
	case !utf8.ValidString(content):
		return fmt.Errorf("%w: byte %d is not valid UTF-8", ErrBadContent, invalidUTF8At(content))
	}
	return nil
}

func invalidUTF8At(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return len(s)
}

// sessionDir is one session's open plan directory.
type sessionDir struct {
	s    *Store
	name string   // the session ID
	root *os.Root // the session directory
	dir  *os.File // the session directory, for fsync and renameat
	id   os.FileInfo
}

// openSession opens the session's directory through the store's root.
// With create it makes the store directory and the session directory
// (0700) when they are missing. The session directory must be a real
// directory (not a symbolic link) of mode 0700, and the opened directory
// must be the one the store directory names.
func (s *Store) openSession(session string, create bool) (*sessionDir, error) {
	if err := checkSessionName(session); err != nil {
		return nil, err
	}
	if create {
		if err := os.MkdirAll(s.dir, DirMode); err != nil {
			return nil, fmt.Errorf("%s: %w", PluginName, err)
		}
	}
	base, err := os.OpenRoot(s.dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	defer base.Close()
	fi, err := base.Lstat(session)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := base.Mkdir(session, DirMode); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%s: %w", PluginName, err)
		}
		fi, err = base.Lstat(session)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	if err := checkDir(s.Path(session), fi); err != nil {
		return nil, err
	}
	root, err := base.OpenRoot(session)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	dir, err := root.Open(".")
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	d := &sessionDir{s: s, name: session, root: root, dir: dir, id: fi}
	opened, err := dir.Stat()
	if err == nil && !sameFile(opened, fi) {
		err = fmt.Errorf("%w: %s", ErrSwapped, filepath.Dir(s.Path(session)))
	}
	if err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

// Stages at which the test hook runs.
const (
	stageTempWritten = "temp-written"
	stageReadOpened  = "read-opened"
)

func (d *sessionDir) hook(stage string) error {
	if d.s.hook == nil {
		return nil
	}
	return d.s.hook(stage, filepath.Dir(d.path()))
}

func (d *sessionDir) close() {
	d.dir.Close()
	d.root.Close()
}

func (d *sessionDir) path() string { return d.s.Path(d.name) }

// checkSessionName refuses names that are not one plain path element.
func checkSessionName(session string) error {
	if session == "" || session == "." || session == ".." || strings.ContainsAny(session, `/\`+"\x00") || len(session) > 255 {
		return fmt.Errorf("%w: session %q", ErrBadSession, session)
	}
	return nil
}

// checkDir refuses a session directory that is a symbolic link, not a
// directory, or open to others.
func checkDir(path string, fi os.FileInfo) error {
	dir := filepath.Dir(path)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symbolic link", ErrUnsafe, dir)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory", ErrUnsafe, dir)
	case fi.Mode().Perm() != DirMode:
		return fmt.Errorf("%w: %s has mode %04o, want %04o", ErrUnsafe, dir, fi.Mode().Perm(), DirMode)
	}
	return nil
}

// checkFile refuses a plan file that is a symbolic link, not a regular
// file, hard-linked, or open to others.
func checkFile(path string, fi os.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symbolic link", ErrUnsafe, path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w: %s is not a regular file (%s)", ErrUnsafe, path, fi.Mode().Type())
	case links(fi) != 1:
		return fmt.Errorf("%w: %s has %d hard links", ErrUnsafe, path, links(fi))
	case fi.Mode().Perm() != FileMode:
		return fmt.Errorf("%w: %s has mode %04o, want %04o", ErrUnsafe, path, fi.Mode().Perm(), FileMode)
	}
	return nil
}

// lstat returns the plan file's info, nil when there is none.
func (d *sessionDir) lstat() (os.FileInfo, error) {
	fi, err := d.root.Lstat(FileName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	return fi, nil
}

// same checks that the directory still names the file f was opened from.
func (d *sessionDir) same(want os.FileInfo) error {
	now, err := d.lstat()
	if err != nil {
		return err
	}
	if now == nil || !sameFile(now, want) {
		return fmt.Errorf("%w: %s", ErrSwapped, d.path())
	}
	return nil
}

// read reads the plan file with every check.
func (d *sessionDir) read(ctx context.Context) (Document, error) {
	before, err := d.lstat()
	if err != nil || before == nil {
		return Document{}, err
	}
	if err := checkFile(d.path(), before); err != nil {
		return Document{}, err
	}
	// O_NONBLOCK: a FIFO swapped in after the check must not block the open.
	f, err := d.root.OpenFile(FileName, os.O_RDONLY|oNonblock|oNoFollow, 0)
	if err != nil {
		if isLoop(err) {
			return Document{}, fmt.Errorf("%w: %s", ErrSwapped, d.path())
		}
		return Document{}, fmt.Errorf("%s: %w", PluginName, err)
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return Document{}, fmt.Errorf("%s: %w", PluginName, err)
	}
	if !sameFile(opened, before) {
		return Document{}, fmt.Errorf("%w: %s", ErrSwapped, d.path())
	}
	if err := checkFile(d.path(), opened); err != nil {
		return Document{}, err
	}
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	if err := d.hook(stageReadOpened); err != nil {
		return Document{}, err
	}
	data, err := io.ReadAll(io.LimitReader(f, d.s.maxBytes+1))
	if err != nil {
		return Document{}, fmt.Errorf("%s: read %s: %w", PluginName, d.path(), err)
	}
	if err := d.same(opened); err != nil {
		return Document{}, err
	}
	content := string(data)
	if err := d.s.Check(content); err != nil {
		return Document{}, fmt.Errorf("%s: %w", d.path(), err)
	}
	return Document{Content: content, Exists: true}, nil
}

// replace writes content to a temporary file and renames it over the plan
// file. With exclusive, an existing plan file is left alone and replace
// reports ErrExist.
func (d *sessionDir) replace(ctx context.Context, content string, exclusive bool) error {
	before, err := d.lstat()
	if err != nil {
		return err
	}
	if before != nil {
		if exclusive {
			return fs.ErrExist
		}
		if err := checkFile(d.path(), before); err != nil {
			return err
		}
	}
	d.removeTemps()
	tmp, f, err := d.writeTemp(ctx, content)
	if err != nil {
		return err
	}
	defer f.Close()
	done := false
	defer func() {
		if !done {
			_ = d.root.Remove(tmp)
		}
	}()
	if err := d.hook(stageTempWritten); err != nil {
		return err
	}
	// The file the directory names must still be the one checked above.
	now, err := d.lstat()
	if err != nil {
		return err
	}
	switch {
	case before == nil && now != nil:
		if exclusive {
			return fs.ErrExist
		}
		return fmt.Errorf("%w: %s appeared during the write", ErrSwapped, d.path())
	case before != nil && (now == nil || !sameFile(now, before)):
		return fmt.Errorf("%w: %s", ErrSwapped, d.path())
	}
	if exclusive {
		// A link fails when the name exists, so an existing file is never
		// replaced; the temporary name is removed right after.
		if err := linkat(d.dir, tmp, FileName); err != nil {
			return err
		}
		if err := d.root.Remove(tmp); err != nil {
			return fmt.Errorf("%s: %w", PluginName, err)
		}
	} else if err := renameat(d.dir, tmp, FileName); err != nil {
		return err
	}
	done = true
	if err := d.dir.Sync(); err != nil {
		return fmt.Errorf("%s: sync %s: %w", PluginName, filepath.Dir(d.path()), err)
	}
	// The name must now refer to the file just written.
	written, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", PluginName, err)
	}
	return d.same(written)
}

// create writes content as a new plan file; an existing one is kept. It
// reports whether it created the file.
func (d *sessionDir) create(ctx context.Context, content string) (bool, error) {
	err := d.replace(ctx, content, true)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	return err == nil, err
}

// writeTemp writes content to a new, exclusive temporary file in the
// session directory and syncs it. It returns the name and the open file,
// which identifies what was written until the caller closes it.
func (d *sessionDir) writeTemp(ctx context.Context, content string) (string, *os.File, error) {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	name := tempPrefix + hex.EncodeToString(rnd[:]) + tempSuffix
	f, err := d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, FileMode)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	fail := func(err error) (string, *os.File, error) {
		f.Close()
		_ = d.root.Remove(name)
		return "", nil, err
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	// The mode given to open is masked by the umask; set it exactly.
	if err := f.Chmod(FileMode); err != nil {
		return fail(fmt.Errorf("%s: %w", PluginName, err))
	}
	if _, err := io.Copy(f, strings.NewReader(content)); err != nil {
		return fail(fmt.Errorf("%s: write %s: %w", PluginName, d.path(), err))
	}
	if err := f.Sync(); err != nil {
		return fail(fmt.Errorf("%s: sync %s: %w", PluginName, d.path(), err))
	}
	return name, f, nil
}

// removeTemps removes temporary files an interrupted replace left behind.
func (d *sessionDir) removeTemps() {
	names, err := d.dir.Readdirnames(-1)
	if _, serr := d.dir.Seek(0, io.SeekStart); serr != nil || err != nil {
		return
	}
	for _, n := range names {
		if !strings.HasPrefix(n, tempPrefix) || !strings.HasSuffix(n, tempSuffix) {
			continue
		}
		if fi, err := d.root.Lstat(n); err == nil && fi.Mode().IsRegular() {
			_ = d.root.Remove(n)
		}
	}
}
