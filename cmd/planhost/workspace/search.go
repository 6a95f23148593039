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

// search is the search tool.
func (w *Workspace) search(ctx context.Context, input json.RawMessage) (string, error) {
	var in struct {
		Pattern    *string `json:"pattern"`
		Path       string  `json:"path"`
		Regexp     bool    `json:"regexp"`
		IgnoreCase bool    `json:"ignore_case"`
	}
	if err := decodeInput(input, &in); err != nil {
		return "", err
	}
	if err := required("pattern", in.Pattern); err != nil {
		return "", err
	}
	pat, lim := *in.Pattern, w.limits
	switch {
	case pat == "":
		return "", fmt.Errorf("%w: %s", ErrBadInput, msgEmptyPat)
	case len(pat) > lim.MaxPatternBytes:
		return "", fmt.Errorf("%w: "+msgPatternLen, ErrTooLarge, len(pat), lim.MaxPatternBytes)
	}
	if !in.Regexp {
		pat = regexp.QuoteMeta(pat)
	}
	if in.IgnoreCase {
		pat = "(?i)" + pat
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return "", fmt.Errorf("%w: "+msgPattern, ErrBadInput, err)
	}
	rel, err := CleanPath(in.Path)
	if err != nil {
		return "", err
	}
	if err := w.checkAllowed(rel); err != nil {
		return "", err
	}
	out := &boundedWriter{limit: lim.MaxOutputBytes}
	matches, skipped := 0, 0
	truncated := false
	err = w.walk(ctx, rel, func(p string, d fs.DirEntry) error {
		if d.IsDir() || d.Type()&fs.ModeSymlink != 0 && p != rel {
			return nil
		}
		if p != rel && !d.Type().IsRegular() {
			return nil // a FIFO, socket or device: nothing to search
		}
		data, err := w.readText(p, lim.MaxSearchFileBytes)
		if err != nil {
			if p == rel && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrNotText) {
				return err
			}
			skipped++
			return nil
		}
		n := 0
		for line := range bytes.Lines(data) {
			n++
			line = bytes.TrimSuffix(line, []byte("\n"))
			if !re.Match(line) {
				continue
			}
			if matches == lim.MaxMatches || !out.line(p+":"+strconv.Itoa(n)+": "+clip(line, lim.MaxLineBytes)) {
				truncated = true
				return fs.SkipAll
			}
			matches++
		}
		return nil
	})
	if err != nil {
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
