package main

import (
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/fakeopenai"
)

// TestPTYLastPieceShowsBeforeTheAnswerEnds protects the frames that draw
// streamed text: the last piece of an answer is on screen while the
// stream is still open, not held back for a piece or a message that has
// not come.
func TestPTYLastPieceShowsBeforeTheAnswerEnds(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{Flavour: fakeopenai.DeepSeek, Delay: time.Second},
		fakeopenai.Reply{Text: "Closing words."})
	defer srv.Close()
	s, _ := startOpenAI(t, srv)
	s.send("Hi\r")
	screen := s.waitScreen("Closing words.")
	if !strings.Contains(screen, "esc cancel") {
		t.Errorf("the last piece showed only once the answer ended:\n%s", screen)
	}
	s.waitIdle()
	s.quit()
}

// TestPTYNothingIsDrawnWhileNothingChanges protects the terminal and the
// processor from redraws: idle, and while a plan review waits for the
// user in the middle of a turn, the program writes nothing.
func TestPTYNothingIsDrawnWhileNothingChanges(t *testing.T) {
	s, _ := startPlanhost(t, 80, "approve.yaml")
	s.quiet("idle")
	s.review()
	s.quiet("waiting for the review")
	s.send("d")
	s.waitScreen("Plan dismissed.")
	s.quit()
}

// quiet fails the test when the program writes to the terminal during a
// second, once what it was drawing has had time to come out.
func (s *ptySession) quiet(while string) {
	s.t.Helper()
	time.Sleep(500 * time.Millisecond)
	before := len(s.raw())
	time.Sleep(time.Second)
	if out := s.raw()[before:]; out != "" {
		s.t.Errorf("%s, the program drew %q", while, out)
	}
}
