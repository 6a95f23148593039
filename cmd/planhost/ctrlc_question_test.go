package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/planentry"
)

// ctrlCQuestion is a question Ctrl-C closes: the script that asks it, the
// deployment, the prompt ("/plan Go" when empty), what the terminal UI
// shows while it is asked (shown), and what the transcript says of its
// end, in cat's words.
type ctrlCQuestion struct {
	name    string
	script  func(t *testing.T, dir string) string
	deploy  string
	prompt  string
	shown   func(cat *present.Catalog) string
	outcome func(cat *present.Catalog) string
}

// sent is the prompt that leads to q's question.
func (q ctrlCQuestion) sent() string {
	if q.prompt == "" {
		return "/plan Go"
	}
	return q.prompt
}

var ctrlCQuestions = []ctrlCQuestion{
	{
		name: "a plan review",
		script: func(t *testing.T, dir string) string {
			return writeScript(t, dir, "s.yaml", "steps:\n  - toolCalls:\n      - name: exit_plan_mode\n        input: {plan: \"# P\"}\n")
		},
		deploy: filepath.Join("testdata", "run", "deploy.yaml"),
		shown:  func(cat *present.Catalog) string { return cat.Review.Question },
		outcome: func(cat *present.Catalog) string {
			return fmt.Sprintf(cat.Session.Outcome, cat.Plans.Cancelled)
		},
	},
	{
		name:   "questions from the model",
		script: func(*testing.T, string) string { return filepath.Join("testdata", "ask", "ask.yaml") },
		deploy: filepath.Join("testdata", "ask", "deploy.yaml"),
		shown:  func(cat *present.Catalog) string { return cat.Form.From },
		outcome: func(cat *present.Catalog) string {
			return fmt.Sprintf(cat.Boxes.Asked, "Storage"+cat.Boxes.Join+"Languages", cat.Boxes.Failed)
		},
	},
	{
		name: "the consent to plan",
		script: func(t *testing.T, dir string) string {
			return writeScript(t, dir, "s.yaml", "steps:\n  - toolCalls:\n      - name: enter_plan_mode\n        input: {goal: Greet in German}\n  - text: ok\n")
		},
		deploy: filepath.Join("testdata", "entry", "deploy.yaml"),
		prompt: "Go",
		shown:  func(*present.Catalog) string { return "Greet in German" },
		outcome: func(cat *present.Catalog) string {
			return cat.Review.Consents[planentry.Purpose].Closed
		},
	},
}

// checkClosedOnce checks what out shows after Ctrl-C closed a question:
// no error text meant for the model, the question's end once, in cat's
// words, before the line that ends the turn.
func checkClosedOnce(t *testing.T, out string, cat *present.Catalog, outcome string) {
	t.Helper()
	for _, bad := range []string{"question aborted", "context canceled", "could not be put"} {
		if strings.Contains(out, bad) {
			t.Errorf("the user sees the model's error %q:\n%s", bad, out)
		}
	}
	if n := strings.Count(out, outcome); n != 1 {
		t.Errorf("%q shows %d times, want once:\n%s", outcome, n, out)
	}
	ended := fmt.Sprintf(cat.Session.TurnEnded, 1, cat.Session.TurnCancelled)
	if i, j := strings.Index(out, outcome), strings.Index(out, ended); i < 0 || j < 0 || i > j {
		t.Errorf("%q does not come before %q:\n%s", outcome, ended, out)
	}
}

// TestConsoleCtrlCAtAQuestion: Ctrl-C at a question closes it, and the
// line console says so once, in the user's language, before the turn's
// end, never with the error the model gets.
func TestConsoleCtrlCAtAQuestion(t *testing.T) {
	for _, q := range ctrlCQuestions {
		for _, cat := range []*present.Catalog{present.English, present.Chinese} {
			t.Run(q.name+"/"+cat.Lang, func(t *testing.T) {
				dir := newRunDir(t)
				stdin, feed := io.Pipe()
				defer feed.Close()
				p, out, errOut, sigs := testProgram(t, "")
				p.stdin = stdin
				done := make(chan int, 1)
				go func() {
					done <- p.main(runArgs(dir, q.script(t, dir), "-config", q.deploy, "-lang", cat.Lang))
				}()
				if _, err := io.WriteString(feed, q.sent()+"\n"); err != nil {
					t.Fatal(err)
				}
				waitFor(t, out, cat.Console.MenuEnd)
				sigs <- os.Interrupt
				waitFor(t, out, fmt.Sprintf(cat.Session.TurnEnded, 1, cat.Session.TurnCancelled))
				sigs <- os.Interrupt
				select {
				case code := <-done:
					if code != exitOK {
						t.Errorf("exit code = %d\n%s", code, errOut)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("a second Ctrl-C did not exit:\n%s", out)
				}
				checkClosedOnce(t, out.String(), cat, q.outcome(cat))
			})
		}
	}
}

// TestPTYCtrlCAtAQuestion: the same in the terminal UI.
func TestPTYCtrlCAtAQuestion(t *testing.T) {
	for _, q := range ctrlCQuestions {
		for _, cat := range []*present.Catalog{present.English, present.Chinese} {
			t.Run(q.name+"/"+cat.Lang, func(t *testing.T) {
				dir := newRunDir(t)
				s := startPTY(t, 100, 40, nil, ptyRunArgs(t, dir, q.script(t, dir), "-config", q.deploy, "-lang", cat.Lang)...)
				s.waitScreen("shift+tab")
				s.send(q.sent() + "\r")
				s.waitScreen(q.shown(cat))
				s.send("\x03")
				ended := fmt.Sprintf(cat.Session.TurnEnded, 1, cat.Session.TurnCancelled)
				screen := s.waitScreen(ended)
				s.quit()
				checkClosedOnce(t, screen, cat, q.outcome(cat))
			})
		}
	}
}
