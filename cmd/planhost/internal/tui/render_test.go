package tui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dshgo/planmode/cmd/planhost/internal/tui"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/todo"
)

// sgr is the escape sequence a style puts before its text.
func sgr(s lipgloss.Style) string {
	before, _, _ := strings.Cut(s.Render("x"), "x")
	return before
}

// TestBoxesShowTheirTitleInTheBorder draws the todo list as the
// transcript gives it: a rounded box with the title in its top border,
// the completed item struck through and the one in progress bold.
func TestBoxesShowTheirTitleInTheBorder(t *testing.T) {
	for _, cat := range []*present.Catalog{present.English, present.Chinese} {
		h := newHarness(t, tui.Config{Catalog: cat})
		box := cat.TodoBox([]todo.Item{{Content: "Read the code", Status: todo.StatusCompleted},
			{Content: "Write the test", Status: todo.StatusInProgress}, {Content: "Ship it", Status: todo.StatusPending}})
		h.send(tui.EventsMsg{Items: []present.Item{box}, Mode: tui.Mode{Composed: true}})
		v := h.view()
		for _, want := range []string{"╭─ " + box.Title + " ─", "✓ Read the code", "▶ Write the test", "○ Ship it", box.Footer, "╰─"} {
			if !strings.Contains(v, want) {
				t.Errorf("%s: the box lacks %q:\n%s", cat.Lang, want, v)
			}
		}
		styled := map[string]string{"Read the code": sgr(lipgloss.NewStyle().Strikethrough(true)), "Write the test": sgr(lipgloss.NewStyle().Bold(true))}
		for _, l := range tui.RenderedForTest(h.m) {
			for text, style := range styled {
				if strings.Contains(l, text) && !strings.Contains(l, style+text) {
					t.Errorf("%s: %q is not drawn with %q: %q", cat.Lang, text, style, l)
				}
			}
		}
	}
}

// TestQuestionsWaitWithoutAClock: while a question waits for the user
// during a turn, the status line says so without the spinner, and
// nothing ticks; the model's questions are framed as the model's.
func TestQuestionsWaitWithoutAClock(t *testing.T) {
	for _, kind := range []string{"review", "form"} {
		t.Run(kind, func(t *testing.T) {
			h := newHarness(t, tui.Config{})
			h.send(tea.WindowSizeMsg{Width: 120, Height: 30})
			h.send(tui.EventsMsg{TurnStarted: true, Mode: tui.Mode{Composed: true}})
			want := []string{present.English.UI.WaitingReview}
			if kind == "form" {
				ask, _ := clarifyingAsk(1)
				h.send(ask)
				want = []string{present.English.Form.From, present.English.Form.Waiting}
			} else {
				ask, _ := planAsk(1, "# Plan\n")
				h.send(ask)
			}
			v := h.view()
			for _, w := range want {
				if !strings.Contains(v, w) {
					t.Errorf("the screen lacks %q:\n%s", w, v)
				}
			}
			if strings.Contains(v, "working") {
				t.Errorf("the spinner turns while the question waits:\n%s", v)
			}
			if _, cmd := h.m.Update(tui.TickForTest(time.Now())); cmd != nil {
				t.Error("a tick while the question waits asks for another")
			}
		})
	}
}

// TestStreamedTextShowsByFrames: the first piece of an answer shows at
// once; the pieces that come while a frame is on its way show with that
// frame, the last one too; a frame with nothing new asks for no other.
func TestStreamedTextShowsByFrames(t *testing.T) {
	var m tea.Model = tui.New(tui.Config{})
	view := func() string { return ansi.Strip(m.View().Content) }
	update := func(msg tea.Msg) (cmd tea.Cmd) {
		m, cmd = m.Update(msg)
		return cmd
	}
	if update(tui.DeltaMsg{Text: "First words"}) == nil || !strings.Contains(view(), "First words") {
		t.Fatalf("the first piece is not shown at once, with a frame to follow:\n%s", view())
	}
	if update(tui.DeltaMsg{Text: " and the last"}) != nil || strings.Contains(view(), "the last") {
		t.Fatalf("a piece was drawn before the frame on its way:\n%s", view())
	}
	update(tui.DeltaMsg{Text: " words."})
	if update(tui.FrameForTest()) == nil || !strings.Contains(view(), "First words and the last words.") {
		t.Fatalf("the frame does not show the pieces that came, with a frame to follow:\n%s", view())
	}
	if update(tui.FrameForTest()) != nil {
		t.Error("a frame with nothing new to show asked for another")
	}
}

// TestThePageFollowsTheEnd: a long transcript shows its end; PgUp shows
// what came before, and PgDn back at the end follows what comes next.
func TestThePageFollowsTheEnd(t *testing.T) {
	h := newHarness(t, tui.Config{})
	for i := range 100 {
		h.send(tui.EventsMsg{Items: []present.Item{{Kind: present.Note, Text: fmt.Sprintf("line %d", i)}}, Mode: tui.Mode{Composed: true}})
	}
	if v := h.view(); !strings.Contains(v, "line 99") || strings.Contains(v, "line 50\n") {
		t.Fatalf("the page is not at the end:\n%s", v)
	}
	h.key(tea.KeyPgUp, 0)
	if v := h.view(); strings.Contains(v, "line 99") || !strings.Contains(v, "line 50") {
		t.Fatalf("PgUp does not show what came before:\n%s", v)
	}
	h.send(tui.EventsMsg{Items: []present.Item{{Kind: present.Note, Text: "line 100"}}, Mode: tui.Mode{Composed: true}})
	if v := h.view(); strings.Contains(v, "line 100") {
		t.Fatalf("the page moved while scrolled back:\n%s", v)
	}
	for range 5 {
		h.key(tea.KeyPgDown, 0)
	}
	h.send(tui.EventsMsg{Items: []present.Item{{Kind: present.Note, Text: "line 101"}}, Mode: tui.Mode{Composed: true}})
	if v := h.view(); !strings.Contains(v, "line 101") {
		t.Fatalf("the page does not follow the end again:\n%s", v)
	}
}
