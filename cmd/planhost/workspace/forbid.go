package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// ErrForbidden means a path leads into a directory the host keeps its own
// state in (see [WithForbidden]).
var ErrForbidden = errors.New("path inside the host's state")

// maxDepth bounds the walk from a path up to the workspace root.
const maxDepth = 512

// maxLinks bounds the symbolic links followed when a path is resolved.
const maxLinks = 40

// errLinkLoop is realDir's answer to a path whose symbolic links do not
// resolve within maxLinks (a loop, or a chain as long as one).
var errLinkLoop = errors.New("too many links")

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

// checkRoot refuses a workspace root that is a forbidden directory or lies
// inside one (the tools' check walks only up to the root, so it could not
// see that), comparing the paths with their symbolic links resolved as far
// as they exist.
func checkRoot(dir string, forbidden []string) error {
	if len(forbidden) == 0 {
		return nil
	}
	root := resolved(dir)
	for _, f := range forbidden {
		if rel, err := filepath.Rel(resolved(f), root); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%w: "+msgRootForbidden, ErrForbidden, dir, f)
		}
	}
	return nil
}

// resolved returns p absolute, with the symbolic links of its longest
// existing part resolved.
func resolved(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	rest := ""
	for cur := abs; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
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
	return slices.ContainsFunc(forbidden, func(f fs.FileInfo) bool { return os.SameFile(info, f) })
}

// checkAllowed refuses rel (clean, workspace-relative) when the file it
// names, or the deepest part of it that exists, lies inside a forbidden
// directory, whatever symbolic links lead there: it finds the real
// directory holding it and walks from there up to the workspace root
// through the real parent directories.
func (w *Workspace) checkAllowed(rel string) error {
	forbidden := w.forbiddenDirs()
	if len(forbidden) == 0 {
		return nil
	}
	refuse := fmt.Errorf("%w: "+msgForbidden, ErrForbidden, rel)
	rootInfo, err := w.root.Stat(".")
	if err != nil {
		return fsError(rel, err)
	}
	dir, err := w.realDir(rel)
	if errors.Is(err, errLinkLoop) {
		// No file is reached by it at all, let alone a forbidden one.
		return fmt.Errorf(msgLinkLoop+"%w", rel, errSilent{syscall.ELOOP})
	}
	if err != nil {
		// Cannot tell: refuse rather than guess.
		return refuse
	}
	if dir == "" {
		return nil // a link out of the workspace, which os.Root refuses
	}
	for range maxDepth {
		info, err := w.root.Stat(dir)
		if err != nil || isForbidden(info, forbidden) {
			return refuse
		}
		if os.SameFile(info, rootInfo) {
			return nil
		}
		// Not cleaned: os.Root takes ".." from the real directory dir
		// names, after its symbolic links.
		dir += "/.."
	}
	return refuse
}

// realDir returns a path (not cleaned, for os.Root to resolve) naming the
// directory rel is, or the real directory holding the file rel names,
// with every symbolic link on the way replaced by its target; for a path
// that does not exist, the deepest part that does. It returns "" when a
// link leads out of the workspace (os.Root refuses those anyway).
func (w *Workspace) realDir(rel string) (string, error) {
	todo := strings.Split(rel, "/")
	cur := "."
	for links := 0; len(todo) > 0; {
		next := cur + "/" + todo[0]
		info, err := w.root.Lstat(next)
		switch {
		case isEscape(err):
			return "", nil
		case err != nil:
			// Missing (or not a directory): the deepest existing part is
			// cur, and the call itself fails on the rest.
			return cur, nil
		case info.Mode()&fs.ModeSymlink != 0:
			links++
			if links > maxLinks {
				return "", errLinkLoop
			}
			target, err := w.root.Readlink(next)
			if err != nil {
				return "", err
			}
			if path.IsAbs(target) || filepath.IsAbs(target) {
				return "", nil
			}
			// The target is relative to the link's directory, cur.
			todo = append(strings.Split(filepath.ToSlash(target), "/"), todo[1:]...)
			continue
		case !info.IsDir():
			return cur, nil // a file: cur holds it
		}
		cur = next
		todo = todo[1:]
	}
	return cur, nil
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
