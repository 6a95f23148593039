package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/dshgo/planmode/host"
)

var listFilesSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory relative to the workspace root; default \".\"."},
    "recursive": {"type": "boolean", "description": "Also list everything below subdirectories."}
  },
  "additionalProperties": false
}`)

type listFilesInput struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive"`
}

// listFiles is the list_files tool.
type listFiles struct{ w *Workspace }

func (t listFiles) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: ListFilesName, Description: listFilesDescription, InputSchema: listFilesSchema}
}

func (t listFiles) Execute(ctx context.Context, _ host.CallContext, input json.RawMessage) (string, error) {
	var in listFilesInput
	if err := decodeInput(input, &in); err != nil {
		return "", err
	}
	rel, err := CleanPath(in.Path)
	if err != nil {
		return "", err
	}
	if err := t.w.checkAllowed(rel); err != nil {
		return "", err
	}
	forbidden := t.w.forbiddenDirs()
	info, err := fs.Stat(t.w.fsys, rel)
	if err != nil {
		return "", fsError(rel, err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf(msgNotDir, rel)
	}
	out := newBoundedWriter(t.w.limits.MaxOutputBytes)
	entries := 0
	truncated := false
	walk := func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == rel {
				return fsError(rel, err)
			}
			return nil // an unreadable subdirectory is left out
		}
		if p == rel {
			return nil
		}
		if d.IsDir() && skipForbidden(d, forbidden) {
			return fs.SkipDir
		}
		if entries == t.w.limits.MaxEntries {
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
	}
	if err := fs.WalkDir(t.w.fsys, rel, walk); err != nil {
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

// boundedWriter collects lines up to a byte budget.
type boundedWriter struct {
	b     strings.Builder
	limit int
}

func newBoundedWriter(limit int) *boundedWriter { return &boundedWriter{limit: limit} }

// line appends s and a newline, and reports false (appending nothing) when
// that would pass the budget.
func (w *boundedWriter) line(s string) bool {
	if w.b.Len()+len(s)+1 > w.limit {
		return false
	}
	w.b.WriteString(s)
	w.b.WriteByte('\n')
	return true
}

// force appends s and a newline regardless of the budget (for the
// truncation note, which is short).
func (w *boundedWriter) force(s string) {
	w.b.WriteString(s)
	w.b.WriteByte('\n')
}

func (w *boundedWriter) String() string { return strings.TrimSuffix(w.b.String(), "\n") }

var _ host.Tool = listFiles{}
