package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// typeThrough types text at one key per gap from before the review is
// drawn until one whole text was typed after it was: the way a user types a
// chat message as the review pops up. A zero gap types the text at once,
// before the review and again as soon as it is drawn.
func (s *ptySession) typeThrough(text string, gap time.Duration) {
	s.t.Helper()
	if gap == 0 {
		s.send(text)
		s.waitScreen("What now?")
		s.send(text)
		return
	}
	deadline := time.Now().Add(ptyWait)
	after := -1 // keys typed since the review was seen on the screen
	for i := 0; after < len(text); i++ {
		if time.Now().After(deadline) {
			s.t.Fatalf("the review did not appear while typing:\n%s", s.screen())
		}
		if after < 0 && i%len(text) == 0 && strings.Contains(s.screen(), "What now?") {
			after = 0
		}
		s.send(string(text[i%len(text)]))
		if after >= 0 {
			after++
		}
		time.Sleep(gap)
	}
}

// moveToApprove waits for a quiet keyboard and moves the review's cursor
// from nowhere to its first answer, Approve, with the down arrow. A loaded
// machine may hand the UI the test's last keys late, so that the arrow too
// counts as typing and is dropped: then it waits and tries again.
func (s *ptySession) moveToApprove() {
	s.t.Helper()
	for range 5 {
		time.Sleep(reviewGraceWait)
		s.send("\x1b[B")
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) {
			if sc := s.screen(); strings.Contains(sc, "❯") {
				if !strings.Contains(sc, "❯ [a] Approve") {
					s.t.Fatalf("the down arrow did not move to Approve:\n%s", sc)
				}
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	s.t.Fatalf("the down arrow never moved to an answer:\n%s", s.screen())
}

// TestPTYTypingNeverAnswersTheReview types chat messages at several speeds
// from before the review is drawn until after it: no key answers the
// review, which stays on its menu; moving to Approve and pressing Enter
// then approves.
func TestPTYTypingNeverAnswersTheReview(t *testing.T) {
	for _, text := range []string{"ok go\r", "just go on\r", "a", "\r"} {
		for _, gap := range []time.Duration{0, 30 * time.Millisecond, 120 * time.Millisecond} {
			t.Run(fmt.Sprintf("%q every %v", text, gap), func(t *testing.T) {
				s, dir := startPlanhost(t, 80, "typing.yaml")
				s.send("/plan Add Goodbye\r")
				s.typeThrough(text, gap)
				time.Sleep(reviewGraceWait)
				checkNoExitResult(t, dir, "the typing")
				if sc := s.screen(); !strings.Contains(sc, "What now?") || strings.Contains(sc, "Feedback for the model") || strings.Contains(sc, "❯") {
					t.Fatalf("the review left its menu, or an answer is selected:\n%s", sc)
				}
				s.moveToApprove()
				s.send("\r")
				s.waitScreen("Plan approved.")
				s.quit()
				checkExitResult(t, dir, `"approved":true`)
			})
		}
	}
}

// TestPTYEnterAloneNeverApproves: after the user read the review, Enter
// with no answer selected answers nothing and says so; the approve key
// then approves.
func TestPTYEnterAloneNeverApproves(t *testing.T) {
	s, dir := startPlanhost(t, 100, "typing.yaml")
	s.review()
	s.answer("\r")
	s.waitScreen("Nothing is selected")
	checkNoExitResult(t, dir, "Enter")
	s.answer("a")
	s.waitScreen("Plan approved.")
	s.quit()
	checkExitResult(t, dir, `"approved":true`)
}
