// Package plandiff shows what changed between two versions of a plan, as
// every front end (terminal, line console, ACP, the demo) shows it. The
// diff is the Go tools' (github.com/aymanbagabas/go-udiff), whose line
// diff runs in time linear in the plans' size: a revised plan of
// thousands of lines is compared at once.
package plandiff

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Unified returns a unified diff of after against before, with one line of
// context and without file headers; "" when before is empty (there is
// nothing to compare with) or the texts differ in nothing but their final
// line breaks.
func Unified(before, after string) string {
	if before == "" {
		return ""
	}
	a, b := strings.TrimRight(before, "\n")+"\n", strings.TrimRight(after, "\n")+"\n"
	d, err := udiff.ToUnified("", "", a, udiff.Lines(a, b), 1)
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
