package store

import (
	"bytes"
	"context"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dshgo/planmode/host"
)

// MemoryDocuments is an in-memory [host.Documents] for tests and embedded
// use. Its documents live as long as the value.
type MemoryDocuments struct {
	mu   sync.Mutex
	docs map[docKey]host.Document
}

type docKey struct{ agent, name string }

// NewMemoryDocuments returns an empty in-memory document store.
func NewMemoryDocuments() *MemoryDocuments {
	return &MemoryDocuments{docs: map[docKey]host.Document{}}
}

// Get implements [host.Documents].
func (m *MemoryDocuments) Get(ctx context.Context, agentID, name string) (host.Document, error) {
	if err := checkDocCall(ctx, agentID, name); err != nil {
		return host.Document{}, err
	}
	m.mu.Lock()
	d, ok := m.docs[docKey{agentID, name}]
	m.mu.Unlock()
	if !ok {
		return host.Document{}, fmt.Errorf("store: document %q of agent %q: %w", name, agentID, host.ErrDocumentNotFound)
	}
	d.Data = bytes.Clone(d.Data)
	return d, nil
}

// Put implements [host.Documents].
func (m *MemoryDocuments) Put(ctx context.Context, agentID, name string, data []byte, ifVersion int64) (host.Document, error) {
	if err := checkDocPut(ctx, agentID, name, data); err != nil {
		return host.Document{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := docKey{agentID, name}
	if cur := m.docs[k].Version; cur != ifVersion {
		return host.Document{}, conflict(agentID, name, cur, ifVersion)
	}
	d := host.Document{Data: bytes.Clone(data), Version: ifVersion + 1}
	if d.Data == nil {
		d.Data = []byte{}
	}
	m.docs[k] = d
	d.Data = bytes.Clone(d.Data)
	return d, nil
}

// DirDocuments is a durable [host.Documents] keeping one file per document:
// <dir>/<agent>/<name>.json, where <agent> is the agent ID when it is made
// of lowercase ASCII letters, digits and '-' (and is no Windows device
// name), and otherwise "~" followed by the ID in lowercase base32, so that
// no ID can name a path outside its directory or collide with another on a
// case-insensitive file system. Names are encoded the same way.
//
// Directories are created 0700 and files 0600; an existing directory that
// lets group or other users in is refused ([ErrInsecureDir]). A Put writes
// the new content to an exclusive temporary file in the agent's directory,
// syncs it, renames it over the document and syncs the directory, so a
// reader (Get) sees the old content or the new, never a mix, and a crash
// leaves one of the two. The compare and the swap run under an exclusive
// flock(2) on <dir>/<agent>/.lock (where the system has flock) and a
// process-wide mutex per agent, so compare-and-swap holds between
// goroutines, between several DirDocuments on one directory, and between
// processes.
type DirDocuments struct {
	path string
	// locks serializes the writers of one agent within the process, so
	// that waiting for the file lock is the exception.
	locks sync.Map // agent dir name → *sync.Mutex
}

// docFile is the on-disk form of a document.
type docFile struct {
	Version int64  `json:"version"`
	Data    []byte `json:"data"`
}

// docLockFile is the lock file in each agent directory.
const docLockFile = ".lock"

// docFileExt ends each document's file name.
const docFileExt = ".json"

// lockPoll is how long a Put waits between tries for a file lock another
// process holds.
const lockPoll = 2 * time.Millisecond

// OpenDirDocuments opens the documents directory dir, creating it (and its
// parents) with mode 0700 when missing. An existing directory that grants
// group or other users any access is refused ([ErrInsecureDir]).
func OpenDirDocuments(dir string) (*DirDocuments, error) {
	if err := secureDir(dir); err != nil {
		return nil, fmt.Errorf("store: documents directory: %w", err)
	}
	return &DirDocuments{path: dir}, nil
}

// secureDir creates dir 0700 when missing and refuses one that is not a
// directory or lets other users in.
func secureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	if perm := fi.Mode().Perm(); checkModes && perm&0o077 != 0 {
		return fmt.Errorf("%s: mode %#o, want 0700: %w", dir, perm, ErrInsecureDir)
	}
	return nil
}

// DocumentPath returns the file that holds the agent's document called
// name. It does not check the key.
func (d *DirDocuments) DocumentPath(agentID, name string) string {
	return filepath.Join(d.path, encodeDocSegment(agentID), encodeDocSegment(name)+docFileExt)
}

// Get implements [host.Documents]. It takes no lock: a rename replaces a
// document whole.
func (d *DirDocuments) Get(ctx context.Context, agentID, name string) (host.Document, error) {
	if err := checkDocCall(ctx, agentID, name); err != nil {
		return host.Document{}, err
	}
	doc, err := d.read(agentID, name)
	if err != nil {
		return host.Document{}, err
	}
	if doc.Version == 0 {
		return host.Document{}, fmt.Errorf("store: document %q of agent %q: %w", name, agentID, host.ErrDocumentNotFound)
	}
	return doc, nil
}

// read returns the document, or version 0 when there is no file.
func (d *DirDocuments) read(agentID, name string) (host.Document, error) {
	path := d.DocumentPath(agentID, name)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return host.Document{}, nil
	}
	if err != nil {
		return host.Document{}, fmt.Errorf("store: document: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return host.Document{}, fmt.Errorf("store: document %s: not a regular file: %w", path, ErrCorrupt)
	}
	if fi.Size() > 2*host.MaxDocumentSize {
		return host.Document{}, fmt.Errorf("store: document %s: %d bytes: %w", path, fi.Size(), ErrCorrupt)
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return host.Document{}, nil
	}
	if err != nil {
		return host.Document{}, fmt.Errorf("store: document: %w", err)
	}
	var f docFile
	if err := json.Unmarshal(raw, &f); err != nil || f.Version < 1 || f.Data == nil {
		return host.Document{}, fmt.Errorf("store: document %s: not a document file: %w", path, ErrCorrupt)
	}
	return host.Document{Data: f.Data, Version: f.Version}, nil
}

// Put implements [host.Documents].
func (d *DirDocuments) Put(ctx context.Context, agentID, name string, data []byte, ifVersion int64) (host.Document, error) {
	if err := checkDocPut(ctx, agentID, name, data); err != nil {
		return host.Document{}, err
	}
	agentDir := filepath.Join(d.path, encodeDocSegment(agentID))
	unlock, err := d.lock(ctx, agentDir)
	if err != nil {
		return host.Document{}, err
	}
	defer unlock()

	cur, err := d.read(agentID, name)
	if err != nil {
		return host.Document{}, err
	}
	if cur.Version != ifVersion {
		return host.Document{}, conflict(agentID, name, cur.Version, ifVersion)
	}
	f := docFile{Version: ifVersion + 1, Data: data}
	if f.Data == nil {
		f.Data = []byte{}
	}
	raw, err := json.Marshal(f)
	if err != nil {
		return host.Document{}, fmt.Errorf("store: document: %w", err)
	}
	if err := replaceFile(agentDir, d.DocumentPath(agentID, name), raw); err != nil {
		return host.Document{}, fmt.Errorf("store: document %q of agent %q: %w", name, agentID, err)
	}
	return host.Document{Data: bytes.Clone(f.Data), Version: f.Version}, nil
}

// lock takes the agent's process-wide mutex, then the exclusive flock on
// the agent directory's lock file, creating both as needed. The returned
// func releases them.
func (d *DirDocuments) lock(ctx context.Context, agentDir string) (unlock func(), err error) {
	v, _ := d.locks.LoadOrStore(agentDir, new(sync.Mutex))
	mu := v.(*sync.Mutex)
	mu.Lock()
	defer func() {
		if err != nil {
			mu.Unlock()
		}
	}()
	if err := secureDir(agentDir); err != nil {
		return nil, fmt.Errorf("store: documents directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(agentDir, docLockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: document lock: %w", err)
	}
	for {
		err := lockFile(f)
		if err == nil {
			break
		}
		if !errors.Is(err, ErrLocked) {
			f.Close()
			return nil, fmt.Errorf("store: document lock: %w", err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("store: document lock: %w", ctx.Err())
		case <-time.After(lockPoll):
		}
	}
	return func() {
		f.Close() // releases the flock
		mu.Unlock()
	}, nil
}

// replaceFile atomically replaces path (in dir) with data: an exclusive
// temporary file (0600) in dir, written and synced, renamed over path, then
// dir synced.
func replaceFile(dir, path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// encodeDocSegment turns an agent ID or a document name into one path
// segment: itself when it is lowercase letters, digits and '-' only (no
// leading '-', no device name), else "~" and its lowercase base32.
func encodeDocSegment(s string) string {
	plain := s != "" && s[0] != '-' && !isDeviceName(s)
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-'
	}
	if plain {
		return s
	}
	return "~" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte(s)))
}

// checkDocCall checks a Get's context and key.
func checkDocCall(ctx context.Context, agentID, name string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: document: %w", err)
	}
	if err := host.ValidateDocumentKey(agentID, name); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// checkDocPut checks a Put's context, key and size.
func checkDocPut(ctx context.Context, agentID, name string, data []byte) error {
	if err := checkDocCall(ctx, agentID, name); err != nil {
		return err
	}
	if len(data) > host.MaxDocumentSize {
		return fmt.Errorf("store: document %q of agent %q: %d bytes, more than %d: %w",
			name, agentID, len(data), host.MaxDocumentSize, host.ErrDocumentTooLarge)
	}
	return nil
}

// conflict is the error of a Put that named the wrong version.
func conflict(agentID, name string, cur, want int64) error {
	return fmt.Errorf("store: document %q of agent %q is at version %d, not %d: %w",
		name, agentID, cur, want, host.ErrVersionConflict)
}

var (
	_ host.Documents = (*MemoryDocuments)(nil)
	_ host.Documents = (*DirDocuments)(nil)
)
