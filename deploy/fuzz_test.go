package deploy_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode/deploy"
)

// errorLine is the shape of every line of a load error.
var errorLine = regexp.MustCompile(`^fuzz\.yaml:[1-9][0-9]*:[1-9][0-9]*: \S`)

func FuzzParse(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		input, _, _ := bytes.Cut(raw, []byte(wantSeparator))
		f.Add(input)
	}
	for _, s := range []string{"", "\t", "plugins: &a [*a]", "? ? ? a", "plugins: {fake: {x: !!binary aGk=}}", "[[[[[[", "plugins:\n  fake: {n: 99999999999999999999999, x: y}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := deploy.Parse("fuzz.yaml", data, offered()...)
		if err == nil {
			if d == nil || d.Option() == nil {
				t.Fatal("Parse returned neither a deployment nor an error")
			}
			for _, name := range d.Plugins {
				if name != "fake" && name != "plain" {
					t.Fatalf("enabled unknown plugin %q", name)
				}
			}
			if len(slices.Compact(slices.Sorted(slices.Values(d.Plugins)))) != len(d.Plugins) {
				t.Fatalf("a plugin is enabled twice: %q", d.Plugins)
			}
			return
		}
		if d != nil {
			t.Fatal("Parse returned a deployment along with errors")
		}
		var de *deploy.Error
		if !errors.As(err, &de) {
			t.Fatalf("errors.As(*Error) failed for %v", err)
		}
		leaves := leafErrors(t, err)
		if len(leaves) > deploy.MaxErrors+1 {
			t.Fatalf("%d errors, more than the cap", len(leaves))
		}
		// YAML breaks lines at LF, CR, NEL, LS and PS; counting every one
		// of them (a CRLF twice) bounds the number of lines.
		lines := 1
		for _, r := range string(data) {
			switch r {
			case '\n', '\r', 0x85, 0x2028, 0x2029:
				lines++
			}
		}
		for i, e := range leaves {
			if e.Line < 1 || e.Line > lines+1 || e.Column < 1 {
				t.Fatalf("error %v points outside the file (%d lines)", e, lines)
			}
			if i > 0 && (e.Line < leaves[i-1].Line || e.Line == leaves[i-1].Line && e.Column < leaves[i-1].Column) {
				t.Fatalf("errors out of file order: %v then %v", leaves[i-1], e)
			}
		}
		for line := range strings.Lines(err.Error()) {
			if !errorLine.MatchString(line) {
				t.Fatalf("error line %q lacks the FILE:LINE:COL prefix", line)
			}
		}
	})
}
