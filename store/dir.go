package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dshgo/planmode/host"
)

// FileExt is the extension of session files: session "abc" is stored in
// "<dir>/abc.jsonl".
const FileExt = ".jsonl"

// Dir is a durable [host.Store] keeping one JSONL file per session in a
// directory. See the package documentation for the file format and the
// durability guarantees.
//
// Opening a session that is already open in the same Dir returns the same
// session object, so every writer shares one append lock. A session file
// that is open in another Dir (in this or another process) cannot be opened
// on systems with flock(2): the error is a [*LockedError] (matching
// [ErrLocked]) that names the holder from the file's owner record (see
// [OwnerExt]). Sessions stay open until
// [Dir.CloseSession] or [Dir.Close].
type Dir struct {
	path       string
	opts       options
	validators *Validators
	now        func() time.Time
	wrap       func(*os.File) file // tests inject write faults here

	mu       sync.Mutex // guards sessions and closed; held while a file is opened
	sessions map[string]*session
	closed   bool
}

// OpenDir opens the sessions directory dir, creating it (and its parents)
// with mode 0700 when missing. An existing directory that grants group or
// other users any access is refused ([ErrInsecureDir]); OpenDir does not
// change the mode of a directory it did not create.
func OpenDir(dir string, opts ...Option) (*Dir, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: sessions directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("store: sessions directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("store: sessions directory %s: not a directory", dir)
	}
	if perm := fi.Mode().Perm(); checkModes && perm&0o077 != 0 {
		return nil, fmt.Errorf("store: sessions directory %s: mode %#o, want 0700 (run: chmod 700 %s, "+
			"or name a directory that does not exist yet: OpenDir creates it with mode 0700): %w", dir, perm, dir, ErrInsecureDir)
	}
	return &Dir{
		path:       dir,
		opts:       o,
		validators: &Validators{Owner: "store"},
		now:        time.Now,
		wrap:       func(f *os.File) file { return f },
		sessions:   map[string]*session{},
	}, nil
}

// checkModes is false where Unix permission bits mean nothing.
const checkModes = runtime.GOOS != "windows" && runtime.GOOS != "plan9"

// AddValidator implements [host.Validators].
func (d *Dir) AddValidator(name string, v host.Validator) (func(), error) {
	return d.validators.Add(name, v)
}

// Path returns the file that holds (or would hold) session id.
func (d *Dir) Path(id string) string { return filepath.Join(d.path, id+FileExt) }

// Create implements [host.Store]. It creates the session's empty file at
// once (with O_EXCL, so an ID taken by a file from an earlier process, or
// by another process, is host.ErrSessionExists) and syncs the directory
// unless the policy is [SyncNever].
func (d *Dir) Create(id string) (host.Session, error) {
	if id == "" {
		id = NewID()
	}
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("store: create session %q: %w", id, host.ErrClosed)
	}
	if _, ok := d.sessions[id]; ok {
		return nil, fmt.Errorf("store: session %q: %w", id, host.ErrSessionExists)
	}
	f, err := d.createFile(id)
	if err != nil {
		return nil, err
	}
	s, err := d.register(id, f, 0, host.Log{})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// createFile creates, locks and (per policy) syncs the new file of id.
func (d *Dir) createFile(id string) (*os.File, error) {
	path := d.Path(id)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("store: session %q: %s: %w", id, path, host.ErrSessionExists)
	}
	if err != nil {
		return nil, fmt.Errorf("store: create session %q: %w", id, err)
	}
	err = lockFile(f)
	if err == nil && d.opts.sync != SyncNever {
		err = syncDir(d.path)
	}

	if err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, fmt.Errorf("store: create session %q: %s: %w", id, path, err)
	}
	return f, nil
}

// Open implements [host.Store]. The first Open of an ID in this Dir reads
// the file: it checks that the events are numbered 1, 2, 3, ..., runs the
// validators on each, cuts off a torn final line (logging [LogTornLine])
// and tightens a file mode broader than 0600 (logging [LogModeTightened]).
// Errors name the file and line ("FILE:LINE: ..."). A later Open returns
// the same session object and runs the validators over its events again.
func (d *Dir) Open(id string) (host.Session, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("store: open session %q: %w", id, host.ErrClosed)
	}
	if s, ok := d.sessions[id]; ok {
		for _, e := range s.Events().All() {
			if err := d.validators.Check(e); err != nil {
				// Line n of a well-formed file holds event n.
				return nil, fmt.Errorf("store: %s:%d: event %d %q: %w", d.Path(id), e.Seq, e.Seq, e.Type, err)
			}
		}
		return s, nil
	}
	s, err := d.load(id)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// load opens and replays the file of id; d.mu is held.
func (d *Dir) load(id string) (_ *session, err error) {
	path := d.Path(id)
	lst, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("store: session %q: %w", id, host.ErrSessionNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open session %q: %w", id, err)
	}
	if !lst.Mode().IsRegular() {
		return nil, fmt.Errorf("store: %s: not a regular file (mode %s)", path, lst.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("store: open session %q: %w", id, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if !os.SameFile(lst, fi) {
		return nil, fmt.Errorf("store: %s: replaced while being opened", path)
	}
	if n := linkCount(fi); n > 1 {
		return nil, fmt.Errorf("store: %s: %d links: %w (remove the other links, or copy the file)", path, n, ErrHardLinked)
	}
	if err := lockFile(f); errors.Is(err, ErrLocked) {
		return nil, fmt.Errorf("store: %s: %w", path, lockedError(path))
	} else if err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if perm := fi.Mode().Perm(); checkModes && perm&^0o600 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return nil, fmt.Errorf("store: %s: mode %#o, want 0600: %w", path, perm, err)
		}
		d.opts.logger.Warn(LogModeTightened, "file", path, "mode", fmt.Sprintf("%#o", perm))
	}
	events, size, err := d.replay(path, f, fi.Size())
	if err != nil {
		return nil, err
	}
	return d.register(id, f, size, host.LogOf(events))
}

// replay reads every event of the file at path (size bytes long) in one
// pass, line by line, repairing a torn tail. It returns the events and the
// size of the file after repair.
func (d *Dir) replay(path string, f *os.File, size int64) ([]host.Event, int64, error) {
	buf := make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), buf); err != nil {
		return nil, 0, fmt.Errorf("store: %s: %w", path, err)
	}
	var (
		events []host.Event
		off    int64 // start of the current line
	)
	for rest := buf; len(rest) > 0; {
		n := len(events) + 1 // the line number; line n holds event n
		line, after, terminated := bytes.Cut(rest, []byte{'\n'})
		rest = after
		if len(line) > d.opts.maxLine {
			return nil, 0, fmt.Errorf("store: %s:%d: longer than %d bytes: %w", path, n, d.opts.maxLine, ErrLineTooLong)
		}
		e, err := decodeLine(line)
		if err != nil && !terminated && !startsWithValue(line) {
			// The last append never finished: cut it off. A final line
			// that starts with a complete value is never cut.
			if err := f.Truncate(off); err != nil {
				return nil, 0, fmt.Errorf("store: %s:%d: cut torn line: %w", path, n, err)
			}
			if err := d.syncRepair(f); err != nil {
				return nil, 0, fmt.Errorf("store: %s:%d: cut torn line: %w", path, n, err)
			}
			d.opts.logger.Warn(LogTornLine, "file", path, "line", n, "bytes", len(line))
			return events, off, nil
		}
		if err != nil {
			return nil, 0, fmt.Errorf("store: %s:%d: %w", path, n, err)
		}
		if e.Seq != uint64(n) {
			return nil, 0, fmt.Errorf("store: %s:%d: %w: event %d %q: seq %d, want %d", path, n, ErrCorrupt, e.Seq, e.Type, e.Seq, n)
		}
		if err := d.validators.Check(e); err != nil {
			return nil, 0, fmt.Errorf("store: %s:%d: event %d %q: %w", path, n, e.Seq, e.Type, err)
		}
		events = append(events, e)
		off += int64(len(line)) + 1
		if !terminated {
			// A complete event whose newline was not written: keep it.
			if _, err := f.Write([]byte{'\n'}); err != nil {
				return nil, 0, fmt.Errorf("store: %s:%d: add final newline: %w", path, n, err)
			}
			if err := d.syncRepair(f); err != nil {
				return nil, 0, fmt.Errorf("store: %s:%d: add final newline: %w", path, n, err)
			}
			d.opts.logger.Warn(LogMissingNewline, "file", path, "line", n)
		}
	}
	return events, off, nil
}

func (d *Dir) syncRepair(f *os.File) error {
	if d.opts.sync == SyncNever {
		return nil
	}
	return f.Sync()
}

// register makes a session of the open, locked file f; d.mu is held.
func (d *Dir) register(id string, f *os.File, size int64, events host.Log) (*session, error) {
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("store: %s: %w", d.Path(id), err)
	}
	fl := &fileLog{
		path:    d.Path(id),
		ident:   fi,
		f:       d.wrap(f),
		size:    size,
		policy:  d.opts.sync,
		maxLine: d.opts.maxLine,
	}
	writeOwner(fl.path, d.now())
	s := newSession(id, d.validators, d.now, fl, events)
	s.fork = func(end int) (host.Session, error) { return d.forkSession(s, end) }
	d.sessions[id] = s
	return s, nil
}

// forkSession writes the first end events of src to a new session file.
// A crash part-way leaves an orphan file whose fresh ID nobody holds.
func (d *Dir) forkSession(src *session, end int) (host.Session, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("store: session %q: fork: %w", src.id, host.ErrClosed)
	}
	prefix := src.Events().Prefix(end)
	id := NewID()
	f, err := d.createFile(id)
	if err != nil {
		return nil, fmt.Errorf("store: session %q: fork: %w", src.id, err)
	}
	size, err := d.writePrefix(f, prefix)
	if err != nil {
		_ = f.Close()
		_ = os.Remove(d.Path(id))
		return nil, fmt.Errorf("store: session %q: fork to %s: %w", src.id, d.Path(id), err)
	}
	s, err := d.register(id, f, size, prefix)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (d *Dir) writePrefix(f *os.File, events host.Log) (int64, error) {
	w := bufio.NewWriterSize(f, 64<<10)
	var (
		enc  lineEncoder
		size int64
	)
	for _, e := range events.All() {
		line, err := enc.encode(e)
		if err != nil {
			return 0, err
		}
		if _, err := w.Write(line); err != nil {
			return 0, err
		}
		size += int64(len(line))
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	if d.opts.sync != SyncNever {
		if err := f.Sync(); err != nil {
			return 0, err
		}
	}
	return size, nil
}

// CloseSession closes the open session id: it syncs the file (unless the
// policy is [SyncNever]) and releases it. Every holder of the session
// object sees later appends fail with host.ErrClosed; a later Open reads
// the file again. Closing a session that is not open is
// host.ErrSessionNotFound.
func (d *Dir) CloseSession(id string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	s, ok := d.sessions[id]
	delete(d.sessions, id)
	if !ok {
		return fmt.Errorf("store: close session %q: not open: %w", id, host.ErrSessionNotFound)
	}
	return s.close()
}

// Close closes every open session, as CloseSession does, and makes later
// Create, Open and Fork calls fail with host.ErrClosed. It is idempotent.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	var errs []error
	for _, s := range d.sessions {
		errs = append(errs, s.close())
	}
	d.sessions = nil
	return errors.Join(errs...)
}

// syncDir makes the creation of files in dir durable.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil // directories cannot be synced there
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// file is the part of *os.File a fileLog writes through.
type file interface {
	io.Writer
	Sync() error
	Truncate(size int64) error
	Close() error
}

// fileLog is the durable backend of a Dir session. write and close run
// with the session's append lock held; sync runs without it, so that
// appends go on while a group of them is being flushed.
type fileLog struct {
	path    string
	ident   os.FileInfo // the open file, to compare with what path names
	f       file
	size    int64 // length of the committed lines
	policy  SyncPolicy
	maxLine int
	enc     lineEncoder

	written atomic.Int64 // size, for sync to read without the append lock

	syncMu sync.Mutex // one fsync at a time; waiting callers share the next
	synced int64      // bytes known durable; guarded by syncMu
	closed bool       // guarded by syncMu

	failMu sync.Mutex
	failed error // set when the file may no longer match the log
}

func (fl *fileLog) failure() error {
	fl.failMu.Lock()
	defer fl.failMu.Unlock()
	if fl.failed == nil {
		return nil
	}
	return fmt.Errorf("%s: %w: %w", fl.path, ErrSessionFailed, fl.failed)
}

// fail marks the session failed with cause and returns the error to
// report.
func (fl *fileLog) fail(cause error) error {
	fl.failMu.Lock()
	if fl.failed == nil {
		fl.failed = cause
	}
	fl.failMu.Unlock()
	return fmt.Errorf("%s: %w: %w", fl.path, ErrSessionFailed, cause)
}

// write appends e as one line with one write call, then syncs per policy.
// Before a sync it checks that the path still names the file (see
// checkPath); an append that is not synced does not look at the path.
// On a failed write the file is cut back to its committed length and the
// session stays usable; when that cut fails, or the sync fails (after
// which the kernel's page cache is no longer trusted), the session is
// marked failed.
func (fl *fileLog) write(e host.Event) error {
	if err := fl.failure(); err != nil {
		return err
	}
	syncNow := fl.policy == SyncEveryAppend || fl.policy == SyncTurnEnd && e.Type == host.TypeTurnEnd
	if syncNow {
		if err := fl.checkPath(); err != nil {
			return fl.fail(err)
		}
	}
	line, err := fl.enc.encode(e)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadEvent, err)
	}
	if n := len(line) - 1; n > fl.maxLine {
		return fmt.Errorf("event %d %q: %d bytes, limit %d: %w", e.Seq, e.Type, n, fl.maxLine, ErrLineTooLong)
	}
	n, err := fl.f.Write(line)
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		if terr := fl.f.Truncate(fl.size); terr != nil {
			return fl.fail(fmt.Errorf("write: %w; cut back to %d bytes: %w", err, fl.size, terr))
		}
		return fmt.Errorf("%s: write: %w", fl.path, err)
	}
	if syncNow {
		if err := fl.f.Sync(); err != nil {
			if terr := fl.f.Truncate(fl.size); terr != nil {
				return fl.fail(fmt.Errorf("sync: %w; cut back to %d bytes: %w", err, fl.size, terr))
			}
			return fl.fail(fmt.Errorf("sync: %w", err))
		}
	}
	fl.size += int64(len(line))
	fl.written.Store(fl.size)
	if fl.policy == SyncGroup && e.Type == host.TypeTurnEnd {
		// The event is committed; a failed flush fails the session, and
		// the append reports it.
		return fl.sync()
	}
	return nil
}

// sync makes every line written before the call durable. A caller that
// finds a flush running waits for it and then flushes only if its lines
// are not yet covered, so concurrent callers share fsyncs.
func (fl *fileLog) sync() error {
	target := fl.written.Load()
	fl.syncMu.Lock()
	defer fl.syncMu.Unlock()
	if err := fl.failure(); err != nil {
		return err
	}
	if fl.synced >= target || fl.closed {
		return nil
	}
	// Appends do not look at the path; a sync does, so that one whose
	// lines went to a file nobody can find fails, under every policy.
	if err := fl.checkPath(); err != nil {
		return fl.fail(err)
	}
	end := fl.written.Load() // everything written so far is covered
	if fl.policy == SyncNever {
		fl.synced = end
		return nil
	}
	if err := fl.f.Sync(); err != nil {
		return fl.fail(fmt.Errorf("sync: %w", err))
	}
	fl.synced = end
	return nil
}

// checkPath reports whether the path still names the open file, with no
// other link: an append to a file that was replaced or removed would be
// lost, and one to a file with another link could be changed through it.
func (fl *fileLog) checkPath() error {
	fi, err := os.Lstat(fl.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: the file is gone; the events appended so far are in memory only", ErrFileReplaced)
	case err != nil:
		return fmt.Errorf("check the session file: %w", err)
	case !os.SameFile(fl.ident, fi):
		return fmt.Errorf("%w: another file is now at its path; it is left as it is", ErrFileReplaced)
	}
	if n := linkCount(fi); n > 1 {
		return fmt.Errorf("%d links: %w", n, ErrHardLinked)
	}
	return nil
}

func (fl *fileLog) close() error {
	fl.syncMu.Lock()
	defer fl.syncMu.Unlock()
	fl.closed = true
	var err error
	if fl.policy != SyncNever && fl.failure() == nil {
		err = fl.f.Sync()
	}
	if fl.checkPath() == nil {
		// The record is this store's only while the path names its file.
		removeOwner(fl.path)
	}
	return errors.Join(err, fl.f.Close())
}

var _ host.Store = (*Dir)(nil)
