package tui_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/internal/e2etest"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dshgo/planmode/cmd/planhost/internal/tui"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/saveplan"
)

// TestWrappedDiffLinesKeepMarkerAndColour protects the diff of a revised
// plan on a narrow terminal: every piece of a wrapped line starts with its
// + or - and carries its colour.
func TestWrappedDiffLinesKeepMarkerAndColour(t *testing.T) {
	const long = "Add a function that says goodbye politely to every visitor who leaves the site."
	before, after := "# Plan\n\n1. "+long+"\n", "# Plan\n\n1. "+long+" And log it.\n"
	h := newHarness(t, tui.Config{})
	h.send(tea.WindowSizeMsg{Width: 40, Height: 60})
	ask, _ := planAsk(1, after)
	ask.Request.Questions[0].Previous = before
	h.send(ask)
	body := tui.ReviewBodyForTest(h.m, 40)
	_, diff, ok := strings.Cut(body, "@@")
	diff, _, ok2 := strings.Cut(diff, "The plan")
	if !ok || !ok2 {
		t.Fatalf("no diff in the review:\n%s", ansi.Strip(body))
	}
	marked := map[byte]int{}
	for _, l := range strings.Split(diff, "\n")[1:] {
		plain := ansi.Strip(l)
		if strings.TrimSpace(plain) == "" {
			continue
		}
		colour := map[byte]string{'+': "\x1b[32m", '-': "\x1b[31m"}[plain[0]]
		if colour == "" {
			t.Errorf("diff line %q has no marker", plain)
			continue
		}
		if !strings.Contains(l, colour) {
			t.Errorf("diff line %q without its colour", l)
		}
		marked[plain[0]]++
	}
	if marked['+'] < 3 || marked['-'] < 3 {
		t.Errorf("marked lines %v, want each wrapped piece marked:\n%s", marked, ansi.Strip(body))
	}
}

// TestReviewStatusWaitsForTheUser protects the status line: while a review
// waits it says so, and its clock does not run.
func TestReviewStatusWaitsForTheUser(t *testing.T) {
	h := newHarness(t, tui.Config{})
	h.send(tui.EventsMsg{TurnStarted: true, Mode: tui.Mode{Composed: true, Active: true}})
	ask, _ := planAsk(1, "# Plan\n\n1. One.\n")
	h.send(ask)
	h.clock.advance(15 * time.Second)
	v := h.view()
	if !strings.Contains(v, "waiting for your review") || strings.Contains(v, "working") {
		t.Errorf("status line during a review:\n%s", v)
	}
}

// TestSaveAndStop protects the save answer: s selects the option, which
// is no approval and carries no edit.
func TestSaveAndStop(t *testing.T) {
	const plan = "# Plan\n\n1. One.\n"
	h := newHarness(t, tui.Config{})
	ask, reply := planAsk(1, plan)
	q := &ask.Request.Questions[0]
	q.Options = []host.Option{{Label: e2etest.ReviewApprove, Role: host.RoleApprove}, {Label: saveplan.Label, Role: host.RoleSave},
		{Label: e2etest.ReviewKeepPlanning, Role: host.RoleKeepPlanning}}
	h.send(ask)
	if v := h.view(); !strings.Contains(v, "[s] Save plan and stop") {
		t.Fatalf("the menu lacks save:\n%s", v)
	}
	h.send(tui.EditedForTest("# Plan\n\n1. Two.\n"))
	h.answer("s")
	r := h.replied(reply)
	if len(r.Answers) != 1 || r.Answers[0].Selected[0] != saveplan.Label || r.Answers[0].Edited != "" {
		t.Fatalf("reply = %+v", r)
	}
}

// TestEditorFailureIsShownInTheReview protects the review from a silent
// editor failure: the error is shown in the menu and logged.
func TestEditorFailureIsShownInTheReview(t *testing.T) {
	var log bytes.Buffer
	h := newHarness(t, tui.Config{Editor: "no-such-editor", Logger: slog.New(slog.NewTextHandler(&log, nil))})
	ask, _ := planAsk(1, "# Plan\n\n1. One.\n")
	h.send(ask)
	h.send(tui.EditFailedForTest(errors.New("exit status 3")))
	v := h.view()
	if !strings.Contains(v, "The editor failed: exit status 3") || !strings.Contains(v, "What now?") {
		t.Errorf("the review does not show the editor's failure:\n%s", v)
	}
	if !strings.Contains(log.String(), "exit status 3") || !strings.Contains(log.String(), "no-such-editor") {
		t.Errorf("log = %q", log.String())
	}
}

// TestHelpListsTheReviewKeys protects /help: it lists the review's keys.
func TestHelpListsTheReviewKeys(t *testing.T) {
	for _, cat := range []*present.Catalog{present.English, present.Chinese} {
		h := newHarness(t, tui.Config{Catalog: cat})
		h.send(tea.WindowSizeMsg{Width: 100, Height: 60})
		h.keys("/help")
		h.key(tea.KeyEnter, 0)
		v := h.view()
		for _, k := range []string{`(?m)^  a / k / e / d `, `(?m)^  s `, `(?m)^  v `} {
			if !regexp.MustCompile(k).MatchString(v) {
				t.Errorf("%s: /help lacks the review key %q:\n%s", cat.Lang, k, v)
			}
		}
	}
}

// TestAnOptionOnVFallsBackToNumbers protects v (what changed): an
// extension's option whose key would be v makes the menu use numbers.
func TestAnOptionOnVFallsBackToNumbers(t *testing.T) {
	h := newHarness(t, tui.Config{})
	ask, _ := planAsk(1, "# Plan\n\n1. One.\n")
	q := &ask.Request.Questions[0]
	q.Options = append(q.Options, host.Option{Label: "Verify first"})
	h.send(ask)
	if v := h.view(); !strings.Contains(v, "[3] Verify first") || strings.Contains(v, "[v]") {
		t.Errorf("menu:\n%s", v)
	}
}

// TestSmallScreenKeepsThePlanInView: on a 60×15 terminal the review keeps
// a few lines of the plan on the page (the menu is drawn without its
// descriptions, every key still there), says how many lines are below and
// the key that scrolls them, and PgDn shows them.
func TestSmallScreenKeepsThePlanInView(t *testing.T) {
	var plan strings.Builder
	plan.WriteString("# Small screen\n\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&plan, "%d. Step number %d.\n", i, i)
	}
	for _, cat := range []*present.Catalog{present.English, present.Chinese} {
		t.Run(cat.Lang, func(t *testing.T) {
			h := newHarness(t, tui.Config{Catalog: cat})
			h.send(tea.WindowSizeMsg{Width: 60, Height: 15})
			ask, reply := planAsk(1, plan.String())
			ask.Request.Questions[0].Options = append(ask.Request.Questions[0].Options, host.Option{Label: "Save", Role: host.RoleSave})
			h.send(ask)
			v := h.view()
			if n := strings.Count(v, "\n") + 1; n > 15 {
				t.Errorf("the view has %d lines, more than the terminal's 15:\n%s", n, v)
			}
			shown := 0
			for i := 1; i <= 30; i++ {
				if strings.Contains(v, fmt.Sprintf("Step number %d.", i)) {
					shown++
				}
			}
			if shown < 3 {
				t.Errorf("%d lines of the plan show, want at least 3:\n%s", shown, v)
			}
			_, more, _ := strings.Cut(cat.UI.MoreBelow, "%d")
			if !strings.Contains(v, more) {
				t.Errorf("the page does not say how to see the rest of the plan:\n%s", v)
			}
			for _, k := range []string{present.KeyApprove, present.KeySave, present.KeyKeep, present.KeyEdit, present.KeyDismiss} {
				if !strings.Contains(v, "["+k+"]") {
					t.Errorf("the menu lacks [%s]:\n%s", k, v)
				}
			}
			for range 5 {
				h.key(tea.KeyPgDown, 0)
			}
			if v := h.view(); !strings.Contains(v, "Step number 30.") || strings.Contains(v, more) {
				t.Errorf("PgDn does not show the end of the plan:\n%s", v)
			}
			h.answer(present.KeyApprove)
			if r := h.replied(reply); r.Err != nil || len(r.Answers) != 1 {
				t.Fatalf("reply = %+v", r)
			}
		})
	}
}
