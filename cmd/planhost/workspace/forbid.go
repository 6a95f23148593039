package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrForbidden means a path leads into a directory the host keeps its own
// state in (see [WithForbidden]).
var ErrForbidden = errors.New("path inside the host's state")

// maxDepth bounds the walk from a path up to the workspace root.
const maxDepth = 512

// Option configures a [Workspace] beyond its [Limits].
type Option func(*options)

type options struct {
	forbidden []string
}

// WithForbidden names directories the tools must never touch, whatever path
// leads there (for example the directory of the session logs, which a
// model could otherwise rewrite). Relative names are taken from the current
// directory. A directory that does not exist yet is checked once it does.
func WithForbidden(dirs ...string) Option {
	return func(o *options) {
		for _, d := range dirs {
			if d == "" {
				continue
			}
			if abs, err := filepath.Abs(d); err == nil {
				d = abs
			}
			o.forbidden = append(o.forbidden, filepath.Clean(d))
		}
	}
}

// forbiddenDirs returns the forbidden directories that exist now.
func (w *Workspace) forbiddenDirs() []fs.FileInfo {
	var infos []fs.FileInfo
	for _, d := range w.forbidden {
		if info, err := os.Stat(d); err == nil && info.IsDir() {
			infos = append(infos, info)
		}
	}
	return infos
}

// isForbidden reports whether info is one of the forbidden directories.
func isForbidden(info fs.FileInfo, forbidden []fs.FileInfo) bool {
	for _, f := range forbidden {
		if os.SameFile(info, f) {
			return true
		}
	}
	return false
}

// checkAllowed refuses rel (clean, workspace-relative) when the file it
// names, or the deepest part of it that exists, lies inside a forbidden
// directory, whatever symbolic links lead there: it walks from there up to
// the workspace root through the real parent directories.
func (w *Workspace) checkAllowed(rel string) error {
	forbidden := w.forbiddenDirs()
	if len(forbidden) == 0 {
		return nil
	}
	rootInfo, err := w.root.Stat(".")
	if err != nil {
		return fsError(rel, err)
	}
	// The deepest existing prefix of rel.
	cur := "."
	if rel != "." {
		for _, elem := range strings.Split(rel, "/") {
			next := path.Join(cur, elem)
			if _, err := w.root.Stat(next); err != nil {
				break
			}
			cur = next
		}
	}
	for range maxDepth {
		info, err := w.root.Stat(cur)
		if err != nil {
			// Cannot tell: refuse rather than guess.
			return fmt.Errorf("%w: "+msgForbidden, ErrForbidden, rel)
		}
		if isForbidden(info, forbidden) {
			return fmt.Errorf("%w: "+msgForbidden, ErrForbidden, rel)
		}
		if os.SameFile(info, rootInfo) {
			return nil
		}
		// Not cleaned: os.Root takes ".." from the real directory cur
		// names, after its symbolic links.
		cur += "/.."
	}
	return fmt.Errorf("%w: "+msgForbidden, ErrForbidden, rel)
}

// skipForbidden reports whether a walk should leave out the directory d
// (a forbidden one, or one that cannot be checked).
func skipForbidden(d fs.DirEntry, forbidden []fs.FileInfo) bool {
	if len(forbidden) == 0 {
		return false
	}
	info, err := d.Info()
	return err != nil || isForbidden(info, forbidden)
}
