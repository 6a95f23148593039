package workspace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
)

// benchTree writes files files of lines lines each under a temp dir.
func benchTree(b *testing.B, files, lines int) string {
	b.Helper()
	dir := b.TempDir()
	line := strings.Repeat("lorem ipsum dolor sit amet ", 3) + "\n"
	body := strings.Repeat(line, lines)
	for i := range files {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%10), fmt.Sprintf("f%d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func BenchmarkSearch(b *testing.B) {
	dir := benchTree(b, 100, 100)
	w := open(b, dir, workspace.Limits{})
	s := tool(b, w, workspace.SearchName)
	in := json.RawMessage(`{"pattern": "needle"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Execute(context.Background(), host.CallContext{}, in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadFile(b *testing.B) {
	dir := benchTree(b, 1, 1000)
	w := open(b, dir, workspace.Limits{})
	r := tool(b, w, workspace.ReadFileName)
	in := json.RawMessage(`{"path": "d0/f0.txt"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Execute(context.Background(), host.CallContext{}, in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCleanPath(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := workspace.CleanPath("./src//util/strings.go"); err != nil {
			b.Fatal(err)
		}
	}
}
