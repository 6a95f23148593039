package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/fakeopenai"
	"github.com/dshgo/planmode/host"
)

// startOpenAI runs "planhost run -model openai" in a pty against srv.
func startOpenAI(t *testing.T, srv *fakeopenai.Server, extra ...string) (*ptySession, string) {
	t.Helper()
	dir := newRunDir(t)
	cfg, err := filepath.Abs(filepath.Join("testdata", "run", "deploy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", "-config", cfg, "-model", "openai", "-workspace", filepath.Join(dir, "ws"), "-sessions", filepath.Join(dir, "sessions")}, extra...)
	env := []string{"OPENAI_BASE_URL=" + srv.BaseURL(), "OPENAI_MODEL=deepseek-thinking", "OPENAI_API_KEY=sk-secret-test-key"}
	s := startPTY(t, 80, 30, env, args...)
	s.waitScreen("shift+tab")
	return s, dir
}

// TestPTYStreamsTextAndReasoning protects streaming in the terminal: the
// model and endpoint (never the key) are shown at start, reasoning and
// text appear while the answer still streams, and Esc cancels mid-stream.
func TestPTYStreamsTextAndReasoning(t *testing.T) {
	gate := make(chan struct{})
	srv := fakeopenai.New(fakeopenai.Options{Flavour: fakeopenai.DeepSeek, Delay: 20 * time.Millisecond},
		fakeopenai.Reply{Reasoning: "Thinking about the greeting.", Text: "Hello from a stream."},
		fakeopenai.Reply{Reasoning: "Stuck.", Text: "never", Gate: gate},
	)
	defer srv.Close()
	defer close(gate)
	s, dir := startOpenAI(t, srv)
	screen := s.screen()
	if !strings.Contains(screen, "model deepseek-thinking at "+srv.BaseURL()) {
		t.Errorf("model and endpoint not shown:\n%s", screen)
	}
	s.send("Hi\r")
	s.waitScreen("Hello from a stream.")
	s.waitIdle()
	// The second answer stops after its first event: what came is shown
	// while the stream is open, and Esc ends it.
	s.send("Again\r")
	s.waitScreen("working")
	s.send("\x1b")
	s.waitScreen("cancelled")
	s.quit()
	if strings.Contains(s.raw(), "sk-secret-test-key") {
		t.Error("the API key was shown")
	}
	var reasons []host.TurnEndReason
	for _, e := range sessionEvents(t, dir) {
		if e.Type == host.TypeTurnEnd {
			var te host.TurnEnd
			jsonUnmarshal(t, e.Data, &te)
			reasons = append(reasons, te.Reason)
		}
	}
	if len(reasons) != 2 || reasons[0] != host.TurnCompleted || reasons[1] != host.TurnCancelled {
		t.Errorf("turn ends = %v", reasons)
	}
}

// TestPTYStreamShowsPiecesBeforeTheEnd protects the live view: with a slow
// stream, the first words are on screen before the last ones are sent.
func TestPTYStreamShowsPiecesBeforeTheEnd(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{Flavour: fakeopenai.DeepSeek, Delay: 150 * time.Millisecond},
		fakeopenai.Reply{Reasoning: "Step one. Step two.", Text: "First words and then the last words."},
	)
	defer srv.Close()
	s, _ := startOpenAI(t, srv)
	s.send("Hi\r")
	screen := s.waitScreen("Step")
	if strings.Contains(screen, "last words") {
		t.Fatalf("the whole answer was there with the first piece:\n%s", screen)
	}
	s.waitScreen("the last words.")
	s.quit()
}

// TestPTYTurnErrorShownOnce protects the screen from log lines: a failed
// turn is reported once, in the UI, and the warning goes to the log file.
func TestPTYTurnErrorShownOnce(t *testing.T) {
	srv := fakeopenai.New(fakeopenai.Options{}, fakeopenai.Reply{Status: http.StatusInternalServerError})
	defer srv.Close()
	s, _ := startOpenAI(t, srv, "-openai-retries", "0")
	s.send("Hi\r")
	screen := s.waitScreen("ended: error")
	if n := strings.Count(screen, "ended: error"); n != 1 {
		t.Errorf("the error is shown %d times:\n%s", n, screen)
	}
	if strings.Contains(screen, "level=") {
		t.Errorf("a log line is on screen:\n%s", screen)
	}
	s.quit()
	log, err := os.ReadFile(filepath.Join(s.home, "state", "planhost", "planhost.log"))
	if err != nil || !strings.Contains(string(log), "500") {
		t.Errorf("log file: %v\n%s", err, log)
	}
}

func jsonUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := jsonDecode(b, v); err != nil {
		t.Fatal(err)
	}
}
