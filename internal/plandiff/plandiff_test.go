package plandiff_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/plandiff"
)

func TestUnified(t *testing.T) {
	tests := []struct {
		name, before, after, want string
	}{
		{"nothing to compare with", "", "# A\n", ""},
		{"the same", "# A\n\n1. x\n", "# A\n\n1. x\n", ""},
		{"only the final line breaks differ", "# A\n1. x", "# A\n1. x\n\n", ""},
		{"a step added", "# A\n1. x\n", "# A\n1. x\n2. y\n", "@@ -2 +2,2 @@\n 1. x\n+2. y"},
		{"a step changed", "# A\n1. x\n2. y\n", "# A\n1. x\n2. z\n", "@@ -2,2 +2,2 @@\n 1. x\n-2. y\n+2. z"},
		{"an added line that looks like a header stays", "# A\n", "# A\n--- x\n", "@@ -1 +1,2 @@\n # A\n+--- x"},
		{"a removed rule stays", "# A\n\n--\n", "# A\n", "@@ -1,3 +1 @@\n # A\n-\n---"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := plandiff.Unified(tt.before, tt.after); got != tt.want {
				t.Fatalf("Unified() =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// BenchmarkUnified compares revisions of a plan of 20, 200 and 2,000
// lines with every tenth line changed, side by side.
func BenchmarkUnified(b *testing.B) {
	for _, n := range []int{20, 200, 2000} {
		var before, after strings.Builder
		for i := range n {
			fmt.Fprintf(&before, "%d. Step %d of the plan.\n", i+1, i+1)
			if i%10 == 0 {
				fmt.Fprintf(&after, "%d. Step %d of the plan, revised.\n", i+1, i+1)
			} else {
				fmt.Fprintf(&after, "%d. Step %d of the plan.\n", i+1, i+1)
			}
		}
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			for b.Loop() {
				plandiff.Unified(before.String(), after.String())
			}
		})
	}
}
