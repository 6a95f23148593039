package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// settleState settles where run keeps its state: with no state directory
// (stateErr) there is none for the default sessions directory or a
// terminal's history; the sessions directory defaults to one under
// stateDir; the workspace must lie apart from both. It returns the
// directories the workspace tools must never touch.
func (p *program) settleState(f *runFlags, stateDir string, stateErr error) ([]string, error) {
	if stateErr != nil && (f.sessions == "" || p.terminal()) {
		return nil, stateErr
	}
	if f.sessions == "" {
		f.sessions = filepath.Join(stateDir, appDirName, sessionsDirName)
	}
	state := []stateLocation{{stateWhatSessions, f.sessions}}
	if stateErr == nil {
		state = append(state, stateLocation{stateWhatState, filepath.Join(stateDir, appDirName)})
	}
	if err := checkApart(f.workspace, state); err != nil {
		return nil, err
	}
	forbidden := make([]string, 0, len(state))
	for _, s := range state {
		forbidden = append(forbidden, s.dir)
	}
	return forbidden, nil
}

// stateLocation is a directory where planhost keeps its own state, which
// the model's workspace must not hold.
type stateLocation struct {
	what string // for messages: "sessions directory", "state directory"
	dir  string
}

// checkApart refuses a workspace that holds one of the state directories,
// or lies inside one: the model's write_file could otherwise rewrite the
// session logs (and plant an approval a resume would apply). Symbolic links
// are resolved as far as the paths exist.
func checkApart(workspace string, state []stateLocation) error {
	ws, err := realPath(workspace)
	if err != nil {
		return fmt.Errorf("-workspace: %w", err)
	}
	for _, s := range state {
		dir, err := realPath(s.dir)
		if err != nil {
			return fmt.Errorf("%s %s: %w", s.what, s.dir, err)
		}
		switch {
		case within(dir, ws):
			return fmt.Errorf(errStateInWorkspace, s.what, s.dir, workspace)
		case within(ws, dir):
			return fmt.Errorf(errWorkspaceInState, workspace, s.what, s.dir)
		}
	}
	return nil
}

// realPath returns p as an absolute path with its symbolic links resolved,
// as far as it exists (the missing rest is appended as it is).
func realPath(p string) (string, error) { return realPathN(p, maxLinks) }

// maxLinks bounds the dangling links realPath follows.
const maxLinks = 40

func realPathN(p string, links int) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	cur, rest := abs, ""
	for {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		// A dangling link: where it points is where the directory would
		// be made.
		if target, lerr := os.Readlink(cur); lerr == nil && links > 0 {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			return realPathN(filepath.Join(target, rest), links-1)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within reports whether path is dir or lies below it (both clean and
// absolute).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
