package render_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dshgo/planmode/cmd/planhost/internal/render"
)

func checkBox(t *testing.T, box string, width int) {
	t.Helper()
	width = min(max(width, render.MinWidth), render.MaxWidth)
	plain := render.Plain(box)
	if strings.ContainsFunc(plain, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 }) {
		t.Fatalf("control character in the box:\n%q", box)
	}
	for _, line := range strings.Split(strings.TrimSuffix(plain, "\n"), "\n") {
		if w := render.Width(line); w != width {
			t.Fatalf("line is %d columns wide, want %d: %q", w, width, line)
		}
	}
}

func TestBoxLinesHaveTheBoxWidth(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		width int
	}{
		{"short", "hello", 30},
		{"wraps at spaces", strings.Repeat("word ", 30), 30},
		{"breaks a long word", strings.Repeat("x", 100), 30},
		{"wide characters", strings.Repeat("日本語", 20), 31},
		{"narrowest", "a b c", 0},
		{"escape sequences", "\x1b[2J\x1b]0;title\x07 text\r\nmore", 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := []render.Row{{Status: render.Completed, Text: tt.text, Note: tt.text}, {Status: render.InProgress, Text: tt.text}, {Text: tt.text}}
			checkBox(t, render.Box(tt.text, rows, tt.text, tt.width), tt.width)
		})
	}
}

func FuzzBox(f *testing.F) {
	f.Add("title", "text with words", 40)
	f.Add("\x1b[1m", strings.Repeat("日", 50), 24)
	f.Add("", "", 300)
	f.Fuzz(func(t *testing.T, title, text string, width int) {
		if !utf8.ValidString(text) || !utf8.ValidString(title) {
			text, title = strings.ToValidUTF8(text, "?"), strings.ToValidUTF8(title, "?")
		}
		checkBox(t, render.Box(title, []render.Row{{Status: render.InProgress, Text: text, Note: text}}, text, width), width)
		html := render.HTML(title, "x", true, []render.Row{{Text: text}})
		if strings.ContainsAny(strings.TrimPrefix(html, "<"), "\x00\x1b") {
			t.Fatalf("control character in HTML %q", html)
		}
	})
}

func TestPlainRemovesOnlyStyleEscapes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"\x1b[1mbold\x1b[0m", "bold"},
		{"a\x1b[9mb\x1b[2mc\x1b[0m", "abc"},
		{"\x1b[38;5;252mcolour\x1b[38:2::1:2:3m\x1b[m", "colour"},
		{"\x1b[2J kept: not a style", "\x1b[2J kept: not a style"},
		{"\x1b[12;3H kept: not a style", "\x1b[12;3H kept: not a style"},
		{"trailing \x1b[", "trailing \x1b["},
		{"\x1b[1", "\x1b[1"},
	}
	for _, tt := range tests {
		if got := render.Plain(tt.in); got != tt.want {
			t.Errorf("Plain(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSanitizeShowsHidingCharacters protects boxes and pages from text
// that hides or reorders itself: format characters are shown as escapes.
func TestSanitizeShowsHidingCharacters(t *testing.T) {
	tests := []struct{ name, give, want string }{
		{"plain text stays", "Run the tests 计划 👩‍💻", "Run the tests 计划 👩‍💻"},
		{"zero-width space", "Run\u200bcurl", `Run\u200bcurl`},
		{"bidi override and pop", "a \u202ehs lruc\u202c b", `a \u202ehs lruc\u202c b`},
		{"bidi isolates and marks", "\u2066x\u2069\u200f", `\u2066x\u2069\u200f`},
		{"byte order mark and soft hyphen", "\ufeffa\u00adb", `\ufeffa\u00adb`},
		{"tag characters", "ok\U000e0041", `ok\U000e0041`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"controls as before", "a\x1b[2Jb\nc", "a\ufffd[2Jb c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := render.Sanitize(tt.give); got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.give, got, tt.want)
			}
			if !strings.Contains(render.HTML("", "x", false, []render.Row{{Text: tt.give}}), tt.want) && !strings.ContainsAny(tt.want, "<>&'\"") {
				t.Errorf("HTML of %q does not show %q", tt.give, tt.want)
			}
		})
	}
}
