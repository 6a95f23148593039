package tui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/internal/e2etest"

	tea "charm.land/bubbletea/v2"

	"github.com/dshgo/planmode/cmd/planhost/internal/tui"
)

// typeKey sends one typed character ('\r' is Enter).
func (h *harness) typeKey(r rune) {
	h.t.Helper()
	if r == '\r' {
		h.key(tea.KeyEnter, 0)
		return
	}
	h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
}

// TestReviewTypingNeverAnswers types chat the way a user does as a review
// pops up, at several speeds, starting before the review arrived and going
// on after it: nothing typed answers the review, which stays open on its
// menu; a deliberate answer afterwards still works.
func TestReviewTypingNeverAnswers(t *testing.T) {
	for _, text := range []string{"ok go\r", "just go on\r", "a", "\r", "\r\r\r", "\t\r"} {
		for _, gap := range []time.Duration{0, 30 * time.Millisecond, 120 * time.Millisecond, 400 * time.Millisecond} {
			for _, before := range []int{0, 1, len(text) / 2} { // keys typed before the review arrived
				name := fmt.Sprintf("%q/%v/%d before", text, gap, before)
				t.Run(name, func(t *testing.T) {
					h := newHarness(t, tui.Config{})
					ask, reply := planAsk(1, "# Plan\n\n1. Step.\n")
					for i, r := range text {
						if i == before {
							h.send(ask)
						}
						h.typeKey(r)
						h.clock.advance(gap)
					}
					if before >= len(text) {
						h.send(ask)
					}
					h.noReply(reply, "typing answered the review")
					if v := h.view(); !strings.Contains(v, "What now?") || strings.Contains(v, "Feedback for the model") {
						t.Fatalf("the review left its menu:\n%s", v)
					}
					// Read, move to Approve, Enter: approved.
					h.clock.advance(time.Second)
					h.key(tea.KeyDown, 0)
					h.key(tea.KeyEnter, 0)
					r := h.replied(reply)
					if r.Err != nil || len(r.Answers) != 1 || r.Answers[0].Selected[0] != e2etest.ReviewApprove {
						t.Fatalf("deliberate approval: %+v", r)
					}
				})
			}
		}
	}
}

// TestReviewEnterAloneNeverApproves: the menu opens with nothing selected;
// Enter after a long read answers nothing and says to choose.
func TestReviewEnterAloneNeverApproves(t *testing.T) {
	h := newHarness(t, tui.Config{})
	ask, reply := planAsk(1, "# Plan\n")
	h.send(ask)
	if v := h.view(); strings.Contains(v, "❯") {
		t.Errorf("an option is highlighted at first:\n%s", v)
	}
	h.clock.advance(5 * time.Second)
	h.key(tea.KeyEnter, 0)
	h.noReply(reply, "Enter alone answered")
	if v := h.view(); !strings.Contains(v, "Nothing is selected") {
		t.Errorf("no note:\n%s", v)
	}
	// The approve key after a quiet keyboard approves.
	h.answer("a")
	if r := h.replied(reply); r.Err != nil || r.Answers[0].Selected[0] != e2etest.ReviewApprove {
		t.Fatalf("reply = %+v", r)
	}
}

// TestReviewOtherTypingPutsTheMenuToSleep: after the user read the review,
// typing that is none of its keys makes the following keys wait for a quiet
// keyboard again.
func TestReviewOtherTypingPutsTheMenuToSleep(t *testing.T) {
	h := newHarness(t, tui.Config{})
	ask, reply := planAsk(1, "# Plan\n")
	h.send(ask)
	h.clock.advance(2 * time.Second)
	h.key(tea.KeyDown, 0) // the user is on Approve
	for _, r := range "yes go on\r" {
		h.clock.advance(150 * time.Millisecond)
		h.typeKey(r)
	}
	h.clock.advance(150 * time.Millisecond)
	h.keys("a")
	h.noReply(reply, "typing answered the review")
	h.answer("d")
	if r := h.replied(reply); r.Err == nil {
		t.Fatalf("reply = %+v, want the dismissal", r)
	}
}
