package planmd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/planmd"
)

// benchPlan is a plan of n steps, each with a continuation line and a
// short code block.
func benchPlan(n int) string {
	var b strings.Builder
	b.WriteString("# Add retries to the uploader\n\nContext paragraph.\n\n")
	for i := range n {
		fmt.Fprintf(&b, "%d. Change `upload.go` part %d\n   so that it retries.\n\n   ```go\n   retry(%d)\n   ```\n", i+1, i, i)
	}
	return b.String()
}

// BenchmarkSteps is the cost of reading a plan's steps (once per approval
// and per exit call) and its title (once per card), by plan size.
func BenchmarkSteps(b *testing.B) {
	for _, n := range []int{3, 100} {
		plan := benchPlan(n)
		b.Run(fmt.Sprintf("steps=%d/bytes=%d", n, len(plan)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = planmd.Steps(plan, 100)
			}
		})
		b.Run(fmt.Sprintf("title/bytes=%d", len(plan)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = planmd.Title(plan)
			}
		})
	}
}
