package mdview_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/dshgo/planmode/cmd/planhost/internal/hidetest"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/internal/safetext"
)

// TestRenderShowsEveryWord renders each hiding trick in every style at a
// narrow and a wide width: every word of the plan is on the screen (styles
// stripped), and the renderer adds no escape but its colours.
func TestRenderShowsEveryWord(t *testing.T) {
	for _, style := range []string{mdview.StyleNoTTY, mdview.StyleDark, mdview.StyleLight} {
		for _, width := range []int{40, 120} {
			r, err := mdview.New(style, width)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range hidetest.Cases {
				t.Run(style+"/"+c.Name, func(t *testing.T) {
					out, err := r.Render(safetext.Markdown(c.Plan))
					if err != nil {
						t.Fatal(err)
					}
					plain := ansi.Strip(safetext.EscapeExceptSGR(out))
					if strings.Contains(plain, "\x1b") {
						t.Errorf("output holds an escape sequence other than a colour:\n%q", plain)
					}
					if m := hidetest.Missing(plain, c.Words); len(m) > 0 {
						t.Errorf("missing %q in\n%s", m, plain)
					}
				})
			}
		}
	}
}

// TestRenderShowsFencesOnLinesOfTheirOwn: a fenced block's opening fence
// with its info string and its closing fence are shown on lines of their
// own, in a list item too, in every style.
func TestRenderShowsFencesOnLinesOfTheirOwn(t *testing.T) {
	tests := []struct{ name, plan, fence string }{
		{"in a list item", "1. Run this:\n\n   ```sh\n   go test ./...\n   ```\n\n2. Done.\n", "```"},
		{"in a tight list item", "- Run this:\n  ~~~sh\n  go test ./...\n  ~~~\n- Done.\n", "~~~"},
		{"at the top", "Run this:\n\n````sh\ngo test ./...\n````\n", "````"},
	}
	for _, style := range []string{mdview.StyleNoTTY, mdview.StyleDark} {
		r, err := mdview.New(style, 60)
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range tests {
			t.Run(style+"/"+tt.name, func(t *testing.T) {
				out, err := r.Render(tt.plan)
				if err != nil {
					t.Fatal(err)
				}
				// The lines after "Run this:", blank ones left out.
				var lines []string
				after := false
				for _, l := range strings.Split(ansi.Strip(out), "\n") {
					l = strings.TrimSpace(strings.ReplaceAll(l, "\u00a0", " "))
					if after && l != "" {
						lines = append(lines, l)
					}
					after = after || strings.HasSuffix(l, "Run this:")
				}
				want := []string{tt.fence + "sh", "go test ./...", tt.fence}
				if len(lines) < len(want) || !slices.Equal(lines[:len(want)], want) {
					t.Errorf("after the line \"Run this:\" want %q, got:\n%s", want, out)
				}
			})
		}
	}
}

func TestNewRefusesAnUnknownStyle(t *testing.T) {
	if _, err := mdview.New("sparkly", 80); !errors.Is(err, mdview.ErrUnknownStyle) || !strings.Contains(err.Error(), "sparkly") {
		t.Errorf("New(sparkly) error = %v, want ErrUnknownStyle naming the style", err)
	}
}

// TestLiteralAndFenceShowEveryWordInAnEditor renders the hiding tricks
// written by Literal and Fence as an editor renders Markdown: every word
// is shown.
func TestLiteralAndFenceShowEveryWordInAnEditor(t *testing.T) {
	for _, c := range hidetest.Cases {
		t.Run(c.Name, func(t *testing.T) {
			plan := safetext.Escape(c.Plan)
			for name, md := range map[string]string{"Literal": mdview.Literal(plan), "Fence": mdview.Fence(plan)} {
				if m := hidetest.Missing(hidetest.EditorText(md), c.Words); len(m) > 0 {
					t.Errorf("%s: missing %q in\n%s", name, m, hidetest.EditorText(md))
				}
			}
		})
	}
}

// FuzzLiteral checks that an editor shows the text Literal wrote as it
// was, white space aside.
func FuzzLiteral(f *testing.F) {
	for _, c := range hidetest.Cases {
		f.Add(c.Plan)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = safetext.Escape(s)
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			return
		}
		if m := hidetest.Missing(hidetest.EditorText(mdview.Literal(s)), []string{s}); len(m) > 0 {
			t.Errorf("Literal(%q) shows %q", s, hidetest.EditorText(mdview.Literal(s)))
		}
	})
}

// FuzzFence checks that an editor shows the text Fence wrote as it was.
func FuzzFence(f *testing.F) {
	for _, c := range hidetest.Cases {
		f.Add(c.Plan)
	}
	f.Add("````\n```\n`")
	f.Fuzz(func(t *testing.T, s string) {
		s = safetext.Escape(s)
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			return
		}
		if m := hidetest.Missing(hidetest.EditorText(mdview.Fence(s)), []string{s}); len(m) > 0 {
			t.Errorf("Fence(%q) shows %q", s, hidetest.EditorText(mdview.Fence(s)))
		}
	})
}

// TestHTMLShowsEveryWordAndLinksNothing renders each hiding trick as HTML:
// every word is in the fragment's text, no element of the plan's own is
// in it (raw HTML is escaped, never dropped), and it holds no hyperlink
// and loads nothing.
func TestHTMLShowsEveryWordAndLinksNothing(t *testing.T) {
	for _, c := range hidetest.Cases {
		t.Run(c.Name, func(t *testing.T) {
			out, err := mdview.HTML(safetext.Markdown(c.Plan))
			if err != nil {
				t.Fatal(err)
			}
			if m := hidetest.Missing(hidetest.PageText(out), c.Words); len(m) > 0 {
				t.Errorf("missing %q in the text of\n%s", m, out)
			}
			for _, bad := range []string{"<script", "<!--", "<div", "<details", "<b>", "<img", "<span", `href="`, `src="`, "raw HTML omitted"} {
				if strings.Contains(out, bad) {
					t.Errorf("the fragment holds %q:\n%s", bad, out)
				}
			}
		})
	}
}

// TestHTMLRendersMarkdown: headings, lists, emphasis and code become HTML.
func TestHTMLRendersMarkdown(t *testing.T) {
	out, err := mdview.HTML("# Add Goodbye\n\n1. Add `Goodbye` to **greeter.go**.\n2. Test it & ship <it>.\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h1", ">Add Goodbye</h1>", "<ol>", "<li>Add <code>Goodbye</code> to <strong>greeter.go</strong>.</li>", "Test it &amp; ship <code>&lt;it&gt;</code>."} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
}
