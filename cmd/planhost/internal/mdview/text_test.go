package mdview_test

import (
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/hidetest"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/cmd/planhost/internal/render"
	"github.com/dshgo/planmode/cmd/planhost/internal/safetext"
)

func TestTextDropsSyntaxOnly(t *testing.T) {
	tests := []struct{ give, want string }{
		{"Run `go test ./...` in **upload**", "Run go test ./... in upload"},
		{"Build\n1. compile\n2. link", "Build\n1. compile\n2. link"},
		{"Build\n- compile\n- link", "Build\n• compile\n• link"},
		{"Build:\n\n```sh\nmake all\n```", "Build:\nsh\nmake all"},
		{"## Prepare\nRead *the* code.", "Prepare\nRead the code."},
		{"Add <kbd>Ctrl</kbd> & [docs](https://d.example \"t\")", "Add <kbd>Ctrl</kbd> & docs (https://d.example \"t\")"},
		{"读取 `上传器` 代码\n并找出重试点。", "读取 上传器 代码 并找出重试点。"},
		{"3) x\n4) y", "3) x\n4) y"},
		{"- [x] done\n- [ ] open", "• [x] done\n• [ ] open"},
		{"| a | b |\n|---|---|\n| 1 | 2 |", "a | b\n1 | 2"},
	}
	for _, tt := range tests {
		if got := mdview.Text(tt.give); got != tt.want {
			t.Errorf("Text(%q) =\n%q, want\n%q", tt.give, got, tt.want)
		}
	}
}

// TestTextShowsEveryWord: every word of each hiding trick is in the text,
// once made safe for a terminal line as a box makes it.
func TestTextShowsEveryWord(t *testing.T) {
	for _, c := range hidetest.Cases {
		t.Run(c.Name, func(t *testing.T) {
			got := render.Sanitize(mdview.Text(safetext.Markdown(c.Plan)))
			if m := hidetest.Missing(got, c.Words); len(m) > 0 {
				t.Errorf("missing %q in\n%s", m, got)
			}
		})
	}
}

// FuzzText: any Markdown gives text, without a panic.
func FuzzText(f *testing.F) {
	for _, c := range hidetest.Cases {
		f.Add(c.Plan)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = mdview.Text(s)
	})
}
