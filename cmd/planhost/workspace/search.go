package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/dshgo/planmode/host"
)

var searchSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Text to look for; a Go (RE2) regular expression when regexp is true."},
    "path": {"type": "string", "description": "File or directory relative to the workspace root; default \".\"."},
    "regexp": {"type": "boolean", "description": "Treat pattern as a regular expression."},
    "ignore_case": {"type": "boolean", "description": "Match without regard to letter case."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)

type searchInput struct {
	Pattern    *string `json:"pattern"`
	Path       string  `json:"path"`
	Regexp     bool    `json:"regexp"`
	IgnoreCase bool    `json:"ignore_case"`
}

// search is the search tool.
type search struct{ w *Workspace }

func (t search) Definition() host.ToolDefinition {
	return host.ToolDefinition{Name: SearchName, Description: searchDescription, InputSchema: searchSchema}
}

// matcher reports whether a line matches.
type matcher func(line []byte) bool

func (t search) compile(in searchInput) (matcher, error) {
	pat := *in.Pattern
	if pat == "" {
		return nil, fmt.Errorf("%w: %s", ErrBadInput, msgEmptyPat)
	}
	if len(pat) > t.w.limits.MaxPatternBytes {
		return nil, fmt.Errorf("%w: "+msgPatternLen, ErrTooLarge, len(pat), t.w.limits.MaxPatternBytes)
	}
	if !in.Regexp && !in.IgnoreCase {
		needle := []byte(pat)
		return func(line []byte) bool { return bytes.Contains(line, needle) }, nil
	}
	expr := pat
	if !in.Regexp {
		expr = regexp.QuoteMeta(pat)
	}
	if in.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%w: "+msgPattern, ErrBadInput, err)
	}
	return re.Match, nil
}

func (t search) Execute(ctx context.Context, _ host.CallContext, input json.RawMessage) (string, error) {
	var in searchInput
	if err := decodeInput(input, &in); err != nil {
		return "", err
	}
	if err := required("pattern", in.Pattern); err != nil {
		return "", err
	}
	match, err := t.compile(in)
	if err != nil {
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
	lim := t.w.limits
	out := newBoundedWriter(lim.MaxOutputBytes)
	matches, skipped := 0, 0
	truncated := false
	walk := func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == rel {
				return fsError(rel, err)
			}
			return nil
		}
		if d.IsDir() && skipForbidden(d, forbidden) {
			return fs.SkipDir
		}
		if d.IsDir() || d.Type()&fs.ModeSymlink != 0 && p != rel {
			return nil
		}
		if p != rel && !d.Type().IsRegular() {
			return nil // a FIFO, socket or device: nothing to search
		}
		data, err := t.w.readText(p, lim.MaxSearchFileBytes)
		if err != nil {
			if p == rel && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrNotText) {
				return err
			}
			skipped++
			return nil
		}
		for n := 1; len(data) > 0; n++ {
			line := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				line, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			if !match(line) {
				continue
			}
			if matches == lim.MaxMatches || !out.line(p+":"+strconv.Itoa(n)+": "+clip(line, lim.MaxLineBytes)) {
				truncated = true
				return fs.SkipAll
			}
			matches++
		}
		return nil
	}
	if err := fs.WalkDir(t.w.fsys, rel, walk); err != nil {
		return "", err
	}
	if truncated {
		out.force(fmt.Sprintf(msgSearchTruncated, matches))
	}
	if skipped > 0 {
		out.force(fmt.Sprintf(msgSearchSkipped, skipped, lim.MaxSearchFileBytes))
	}
	if matches == 0 && !truncated {
		res := fmt.Sprintf(msgNoMatches, *in.Pattern, rel)
		if skipped > 0 {
			res += "\n" + out.String()
		}
		return res, nil
	}
	return out.String(), nil
}

// clip shortens line to at most n bytes (cutting at a rune boundary) and
// marks the cut with an ellipsis; carriage returns at the end are dropped.
func clip(line []byte, n int) string {
	line = bytes.TrimRight(line, "\r")
	if len(line) <= n {
		return string(line)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return string(line[:cut]) + "…"
}

var _ host.Tool = search{}
