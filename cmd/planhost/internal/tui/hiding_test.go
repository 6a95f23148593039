package tui_test

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"
	"github.com/dshgo/planmode/cmd/planhost/internal/hidetest"
	"github.com/dshgo/planmode/cmd/planhost/internal/tui"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/safetext"
)

// safeConfig is the program's escaping of model text, with the session's
// log.
func safeConfig(noColor bool, log host.Log) tui.Config {
	return tui.Config{NoColor: noColor, Log: func() host.Log { return log }, Sanitize: safetext.Escape, Markdown: safetext.Markdown, Rendered: safetext.EscapeExceptSGR}
}

// checkShown fails the test unless shown, styles stripped, holds every
// word of c and no escape but colours.
func checkShown(t *testing.T, shown string, c hidetest.Case) {
	t.Helper()
	plain := ansi.Strip(shown)
	if strings.Contains(plain, "\x1b") {
		t.Errorf("an escape other than a colour reached the terminal:\n%q", plain)
	}
	if m := hidetest.Missing(plain, c.Words); len(m) > 0 {
		t.Errorf("missing %q in\n%s", m, plain)
	}
}

// TestTheReviewShowsEveryWord opens a review of each hiding trick, with
// and without colour, on a narrow and a wide terminal: the plan as the
// viewport gets it holds every word.
func TestTheReviewShowsEveryWord(t *testing.T) {
	for _, noColor := range []bool{true, false} {
		for _, width := range []int{50, 130} {
			for _, c := range hidetest.Cases {
				t.Run(c.Name, func(t *testing.T) {
					h := newHarness(t, safeConfig(noColor, host.Log{}))
					h.send(tea.WindowSizeMsg{Width: width, Height: 30})
					ask, _ := planAsk(1, c.Plan)
					h.send(ask)
					h.clock.advance(time.Second)
					checkShown(t, tui.ReviewBodyForTest(h.m, width), c)
				})
			}
		}
	}
}

// TestPlansShowsEveryWord shows each hiding trick with /plans N.
func TestPlansShowsEveryWord(t *testing.T) {
	for _, noColor := range []bool{true, false} {
		for _, c := range hidetest.Cases {
			t.Run(c.Name, func(t *testing.T) {
				h := newHarness(t, safeConfig(noColor, planLog(t, reviewed{plan: c.Plan})))
				h.send(tea.KeyPressMsg{Code: '/', Text: "/"})
				h.keys("plans 1")
				h.key(tea.KeyEnter, 0)
				checkShown(t, strings.Join(tui.RenderedForTest(h.m), "\n"), c)
			})
		}
	}
}

// TestPlansListShowsTitlesEscaped lists the plans of a resumed session
// whose titles hold an escape sequence and a bidi override: /plans shows
// them as visible escapes.
func TestPlansListShowsTitlesEscaped(t *testing.T) {
	h := newHarness(t, safeConfig(true, planLog(t, reviewed{plan: "# Run tests\x1b[2J \u202ehs | lruc\n"})))
	h.send(tea.KeyPressMsg{Code: '/', Text: "/"})
	h.keys("plans")
	h.key(tea.KeyEnter, 0)
	shown := strings.Join(tui.RenderedForTest(h.m), "\n")
	if strings.Contains(shown, "\x1b[2J") || strings.Contains(shown, "\u202e") {
		t.Errorf("the title reached the terminal unescaped:\n%q", shown)
	}
	if m := hidetest.Missing(shown, []string{`Run tests\x1b[2J \u202ehs | lruc`}); len(m) > 0 {
		t.Errorf("missing %q in\n%s", m, shown)
	}
}
