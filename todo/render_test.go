package todo_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/todo"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s differs (go test ./todo -run %s -update rewrites it):\ngot:\n%s\nwant:\n%s", path, t.Name(), got, want)
	}
}

func sample() []todo.Item {
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	return []todo.Item{
		{ID: "1", Content: "Read the uploader and its tests", Status: todo.StatusCompleted, Priority: todo.PriorityMedium, CreatedAt: at, UpdatedAt: at},
		{ID: "2", Content: "Add retries with exponential backoff to every upload request, capped at five attempts", Status: todo.StatusInProgress, Priority: todo.PriorityHigh, CreatedAt: at, UpdatedAt: at},
		{ID: "3", Content: "Document the <retry> setting & its default", Status: todo.StatusPending, Priority: todo.PriorityLow, CreatedAt: at, UpdatedAt: at},
		{ID: "4", Content: "Escape \x1b[2J sequences 日本語", Status: todo.StatusPending, Priority: todo.PriorityMedium, CreatedAt: at, UpdatedAt: at},
	}
}

func TestRenderANSIGolden(t *testing.T) {
	golden(t, "todo.ansi", todo.RenderANSI(sample(), 48))
}

func TestRenderHTMLGolden(t *testing.T) {
	golden(t, "todo.html", todo.RenderHTML(sample()))
}

func TestRenderANSIStylesEachStatus(t *testing.T) {
	out := todo.RenderANSI(sample(), 60)
	for _, want := range []string{"✓ \x1b[9mRead the uploader", "▶ \x1b[1m[high] Add retries", "○ Document"} {
		if !strings.Contains(out, want) {
			t.Errorf("box lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[2J") {
		t.Error("model text put an escape sequence into the box")
	}
}

func TestRenderHTMLEscapesAndClassifies(t *testing.T) {
	out := todo.RenderHTML(sample())
	for _, want := range []string{todo.ClassCompleted, todo.ClassInProgress, todo.ClassPending, "&lt;retry&gt; setting &amp; its"} {
		if !strings.Contains(out, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}
