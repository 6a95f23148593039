package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
)

var listFilesSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory relative to the workspace root; default \".\"."},
    "recursive": {"type": "boolean", "description": "Also list everything below subdirectories."}
  },
  "additionalProperties": false
}`)

// listFiles is the list_files tool.
func (w *Workspace) listFiles(ctx context.Context, input json.RawMessage) (string, error) {
	var in struct {
		Path      string `json:"path"`
		Recursive bool   `json:"recursive"`
	}
	if err := decodeInput(input, &in); err != nil {
		return "", err
	}
	rel, err := CleanPath(in.Path)
	if err != nil {
		return "", err
	}
	if err := w.checkAllowed(rel); err != nil {
		return "", err
	}
	info, err := fs.Stat(w.fsys, rel)
	if err != nil {
		return "", fsError(rel, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf(msgNotDir, rel)
	}
	out := &boundedWriter{limit: w.limits.MaxOutputBytes}
	entries := 0
	truncated := false
	err = w.walk(ctx, rel, func(p string, d fs.DirEntry) error {
		if p == rel {
			return nil
		}
		if entries == w.limits.MaxEntries {
			truncated = true
			return fs.SkipAll
		}
		line := p
		switch {
		case d.IsDir():
			line += "/"
		case d.Type()&fs.ModeSymlink != 0:
			line += "@"
		}
		if !out.line(line) {
			truncated = true
			return fs.SkipAll
		}
		entries++
		if d.IsDir() && !in.Recursive {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if entries == 0 {
		return msgNoEntries, nil
	}
	if truncated {
		out.force(fmt.Sprintf(msgListTruncated, entries))
	}
	return out.String(), nil
}

// walk calls fn for rel and everything below it, in lexical order,
// leaving out the forbidden directories and what cannot be read below rel.
// The caller has checked rel with checkAllowed.
func (w *Workspace) walk(ctx context.Context, rel string, fn func(p string, d fs.DirEntry) error) error {
	forbidden := w.forbiddenDirs()
	return fs.WalkDir(w.fsys, rel, func(p string, d fs.DirEntry, err error) error {
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && p == rel:
			return fsError(rel, err)
		case err != nil:
			return nil // an unreadable subdirectory is left out
		case d.IsDir() && skipForbidden(d, forbidden):
			return fs.SkipDir
		}
		return fn(p, d)
	})
}

// boundedWriter collects lines up to a byte budget.
type boundedWriter struct {
	b     strings.Builder
	limit int
}

// line appends s and a newline, and reports false (appending nothing) when
// that would pass the budget.
func (w *boundedWriter) line(s string) bool {
	if w.b.Len()+len(s)+1 > w.limit {
		return false
	}
	w.force(s)
	return true
}

// force appends s and a newline regardless of the budget (for the
// truncation note, which is short).
func (w *boundedWriter) force(s string) {
	w.b.WriteString(s)
	w.b.WriteByte('\n')
}

func (w *boundedWriter) String() string { return strings.TrimSuffix(w.b.String(), "\n") }
