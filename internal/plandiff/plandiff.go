// Package plandiff shows what changed between two versions of a plan, as
// every front end (terminal, line console, ACP, the demo) shows it.
package plandiff

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// Unified returns a unified diff of after against before, with one line of
// context and without file headers; "" when before is empty (there is
// nothing to compare with) or the texts differ in nothing but their final
// line breaks.
func Unified(before, after string) string {
	if before == "" {
		return ""
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: lines(before), B: lines(after), Context: 1})
	if err != nil || d == "" {
		return ""
	}
	// The diff starts with its two file headers ("--- " and "+++ "), which
	// name nothing here; a removed line of the plan may itself start with
	// "---", so only those two lines go.
	out := strings.Split(strings.TrimRight(d, "\n"), "\n")
	if len(out) >= 2 && strings.HasPrefix(out[0], "--- ") && strings.HasPrefix(out[1], "+++ ") {
		out = out[2:]
	}
	return strings.Join(out, "\n")
}

// lines splits s into lines that keep their line breaks, the last one
// given one.
func lines(s string) []string {
	l := strings.SplitAfter(strings.TrimRight(s, "\n")+"\n", "\n")
	return l[:len(l)-1]
}
