// Package workspace gives a model tools over one directory: read-only
// list_files, read_file and search, and write_file.
//
// Every path a model passes is relative to the workspace root. Absolute
// paths and paths with a ".." element are refused before any file system
// access, and all access goes through an [os.Root], so a symbolic link that
// leads outside the root is refused as well. Reads, writes and tool output
// are bounded by [Limits].
package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/dshgo/planmode/host"
)

// Errors returned (wrapped) by the tools, for errors.Is.
var (
	// ErrOutside means a path is absolute, has a ".." element, or leads
	// outside the workspace through a symbolic link.
	ErrOutside = errors.New("path outside the workspace")
	// ErrTooLarge means a file, a write or a pattern is over its limit.
	ErrTooLarge = errors.New("over the size limit")
	// ErrBadInput means the tool arguments are malformed or incomplete.
	ErrBadInput = errors.New("bad tool arguments")
	// ErrNotText means a file looks binary.
	ErrNotText = errors.New("not a text file")
)

// Default limits, used for the zero fields of [Limits].
const (
	DefaultMaxReadBytes       = 256 << 10
	DefaultMaxWriteBytes      = 1 << 20
	DefaultMaxOutputBytes     = 64 << 10
	DefaultMaxEntries         = 1000
	DefaultMaxMatches         = 200
	DefaultMaxSearchFileBytes = 1 << 20
	DefaultMaxLineBytes       = 240
	DefaultMaxPatternBytes    = 1 << 10
)

// Limits bound what the tools read, write and return. A zero field takes
// its Default value; a negative field is an error.
type Limits struct {
	// MaxReadBytes is the largest file read_file returns.
	MaxReadBytes int64
	// MaxWriteBytes is the largest content write_file accepts.
	MaxWriteBytes int64
	// MaxOutputBytes bounds the text list_files and search return.
	MaxOutputBytes int
	// MaxEntries bounds the entries list_files returns.
	MaxEntries int
	// MaxMatches bounds the lines search returns.
	MaxMatches int
	// MaxSearchFileBytes is the largest file search looks into; larger
	// files are skipped and counted.
	MaxSearchFileBytes int64
	// MaxLineBytes bounds each matching line search prints.
	MaxLineBytes int
	// MaxPatternBytes bounds the search pattern.
	MaxPatternBytes int
}

func (l Limits) withDefaults() (Limits, error) {
	var err error
	fill(&l.MaxReadBytes, DefaultMaxReadBytes, "MaxReadBytes", &err)
	fill(&l.MaxWriteBytes, DefaultMaxWriteBytes, "MaxWriteBytes", &err)
	fill(&l.MaxOutputBytes, DefaultMaxOutputBytes, "MaxOutputBytes", &err)
	fill(&l.MaxEntries, DefaultMaxEntries, "MaxEntries", &err)
	fill(&l.MaxMatches, DefaultMaxMatches, "MaxMatches", &err)
	fill(&l.MaxSearchFileBytes, DefaultMaxSearchFileBytes, "MaxSearchFileBytes", &err)
	fill(&l.MaxLineBytes, DefaultMaxLineBytes, "MaxLineBytes", &err)
	fill(&l.MaxPatternBytes, DefaultMaxPatternBytes, "MaxPatternBytes", &err)
	return l, err
}

// fill sets a zero *v to def and records an error for a negative one.
func fill[T int | int64](v *T, def T, name string, err *error) {
	switch {
	case *v < 0 && *err == nil:
		*err = fmt.Errorf("workspace: limits: %s: %d is negative, want 0 (default) or more", name, *v)
	case *v == 0:
		*v = def
	}
}

// Workspace is a directory the tools are confined to. It is safe for
// concurrent use.
type Workspace struct {
	root   *os.Root
	fsys   fs.FS
	limits Limits
	// writeMu serializes writes so that two writes of one file never share
	// a temporary file.
	writeMu sync.Mutex
	// forbidden are the absolute directories of WithForbidden.
	forbidden []string
}

// Open opens dir as a workspace. Zero fields of lim take their defaults.
// Close releases the directory handle.
func Open(dir string, lim Limits, opts ...Option) (*Workspace, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	lim, err := lim.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkRoot(dir, o.forbidden); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	return &Workspace{root: root, fsys: root.FS(), limits: lim, forbidden: o.forbidden}, nil
}

// Close releases the workspace's directory handle.
func (w *Workspace) Close() error { return w.root.Close() }

// Tools returns the four tools, sorted by name: list_files, read_file,
// search, write_file.
func (w *Workspace) Tools() []host.Tool {
	return append(w.ReadOnlyTools(), tool{WriteFileName, writeFileDescription, writeFileSchema, w.writeFile})
}

// ReadOnlyTools returns list_files, read_file and search.
func (w *Workspace) ReadOnlyTools() []host.Tool {
	return []host.Tool{
		tool{ListFilesName, listFilesDescription, listFilesSchema, w.listFiles},
		tool{ReadFileName, readFileDescription, readFileSchema, w.readFile},
		tool{SearchName, searchDescription, searchSchema, w.search},
	}
}

// tool is one of the workspace's tools.
type tool struct {
	name, description string
	schema            json.RawMessage
	run               func(context.Context, json.RawMessage) (string, error)
}

func (t tool) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: t.name, Description: t.description, InputSchema: t.schema}
}

func (t tool) Execute(ctx context.Context, _ host.CallContext, input json.RawMessage) (string, error) {
	return t.run(ctx, input)
}

var _ host.Tool = tool{}

// CleanPath turns a path the model passed into a clean, slash-separated
// path relative to the workspace root ("." for the root itself). It refuses
// absolute paths and paths with a ".." element with [ErrOutside], and paths
// with a NUL byte or invalid UTF-8 with [ErrBadInput]. It does not look at
// the file system: symbolic links are checked when the path is opened.
func CleanPath(p string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("%w: "+msgNUL, ErrBadInput, p)
	}
	if !utf8.ValidString(p) {
		return "", fmt.Errorf("%w: "+msgUTF8, ErrBadInput, p)
	}
	slashed := filepath.ToSlash(p)
	if p == "" {
		return ".", nil
	}
	if path.IsAbs(slashed) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return "", fmt.Errorf("%w: "+msgAbsolute, ErrOutside, p)
	}
	for _, elem := range strings.Split(slashed, "/") {
		if elem == ".." {
			return "", fmt.Errorf("%w: "+msgDotDot, ErrOutside, p)
		}
	}
	return path.Clean(slashed), nil
}

// fsError turns an error of the rooted file system into a model-facing
// error that names only the workspace-relative path (never the root's
// location on disk).
func fsError(rel string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf(msgNotFound+"%w", rel, errSilent{err})
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf(msgPermission+"%w", rel, errSilent{err})
	case isEscape(err):
		return fmt.Errorf("%w: "+msgEscapes, ErrOutside, rel)
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf(msgLinkLoop+"%w", rel, errSilent{err})
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", rel, pe.Err)
	}
	return fmt.Errorf("%s: %w", rel, err)
}

// isEscape reports whether err is os.Root's refusal of a path that leaves
// the root (the standard library has no exported sentinel for it).
func isEscape(err error) bool {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err != nil && pe.Err.Error() == "path escapes from parent"
	}
	return false
}

// errSilent keeps an error in the chain for errors.Is without adding its
// text (which may carry the root's absolute path) to the message.
type errSilent struct{ err error }

func (e errSilent) Error() string { return "" }
func (e errSilent) Unwrap() error { return e.err }
