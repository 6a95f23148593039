package deploy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/deploy"
)

func BenchmarkParse(b *testing.B) {
	typical := []byte("plugins:\n  fake:\n    x: |\n      You are in plan mode. Explore read-only, then present a plan.\n    n: 3\n  plain:\n")
	var big strings.Builder
	big.WriteString("plugins:\n  plain:\n")
	for i := 0; big.Len() < deploy.MaxFileSize-100; i++ {
		fmt.Fprintf(&big, "    key%d: {a: [1, 2, 3], b: some text here}\n", i)
	}
	deep := "plugins:\n  plain: {d: " + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "}\n"
	benches := []struct {
		name string
		give []byte
	}{
		{name: "typical", give: typical},
		{name: "near the size cap", give: []byte(big.String())},
		{name: "nested 9000 deep", give: []byte(deep)},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.give)))
			for b.Loop() {
				if _, err := deploy.Parse("bench.yaml", bb.give, offered()...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
