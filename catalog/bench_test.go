package catalog_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dshgo/planmode/catalog"
)

func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := catalog.Load(fixtureDir); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarkdown(b *testing.B) {
	c, err := catalog.Load(fixtureDir)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Markdown()
	}
}

func BenchmarkInject(b *testing.B) {
	page, err := os.ReadFile(filepath.Join("testdata", "region", "marker-in-code-fence.md"))
	if err != nil {
		b.Fatal(err)
	}
	c, err := catalog.Load(fixtureDir)
	if err != nil {
		b.Fatal(err)
	}
	content := c.Markdown()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := catalog.Inject(page, content); err != nil {
			b.Fatal(err)
		}
	}
}
