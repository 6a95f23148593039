package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/reviewgate"
	"github.com/dshgo/planmode/host"
)

// reviewGraceWait outlasts the quiet keyboard the review waits for before
// it takes keys (the test's last key came before the review was drawn).
const reviewGraceWait = reviewgate.Quiet + 300*time.Millisecond

// startPlanhost runs "planhost run" with a pty test script in a cols-wide
// terminal.
func startPlanhost(t *testing.T, cols uint16, script string, env ...string) (*ptySession, string) {
	t.Helper()
	dir := newRunDir(t)
	s := startPTY(t, cols, 24, env, ptyRunArgs(t, dir, filepath.Join("testdata", "pty", script))...)
	s.waitScreen("shift+tab")
	return s, dir
}

// review asks for a plan of "Add Goodbye" and waits for its review.
func (s *ptySession) review() string {
	s.t.Helper()
	s.send("/plan Add Goodbye\r")
	return s.waitScreen("What now?")
}

// answer waits out the quiet keyboard a review or question waits for,
// then presses key.
func (s *ptySession) answer(key string) {
	time.Sleep(reviewGraceWait)
	s.send(key)
}

// toolResults are the session's exit_plan_mode results.
func exitResults(t *testing.T, events []host.Event) []host.ToolResult {
	t.Helper()
	var out []host.ToolResult
	for _, e := range events {
		if e.Type != host.TypeToolResult {
			continue
		}
		var r host.ToolResult
		if err := json.Unmarshal(e.Data, &r); err != nil {
			t.Fatal(err)
		}
		if r.Name == planmode.ExitToolName {
			out = append(out, r)
		}
	}
	return out
}

// quit leaves the session with /quit and checks the terminal was restored.
func (s *ptySession) quit() {
	s.t.Helper()
	s.send("\x15/quit\r") // Ctrl-U clears what the test may have left
	if code := s.waitExit(5 * time.Second); code != exitOK {
		s.t.Fatalf("exit code %d", code)
	}
	s.checkRestored()
}

// checkRestored checks the program left the alternate screen and showed
// the cursor after it last entered it.
func (s *ptySession) checkRestored() {
	s.t.Helper()
	raw := s.raw()
	enter := strings.LastIndex(raw, "\x1b[?1049h")
	leave := strings.LastIndex(raw, "\x1b[?1049l")
	show := strings.LastIndex(raw, "\x1b[?25h")
	if enter < 0 || leave < enter || show < leave {
		s.t.Errorf("terminal not restored: alt screen entered at %d, left at %d, cursor shown at %d", enter, leave, show)
	}
}

func TestPTYApprove(t *testing.T) {
	s, dir := startPlanhost(t, 80, "approve.yaml")
	s.review()
	s.answer("a")
	screen := s.waitScreen("Working on it.")
	checkHas(t, "screen", screen, "Plan approved.", "✻ thinking (2 lines) · ctrl+o to show", " default ")
	s.send("\x0f") // ctrl+o shows the thinking
	s.waitScreen("One function is enough.")
	s.quit()
	checkExitResult(t, dir, `"approved":true`)
}

func TestPTYKeepPlanningWithPastedFeedbackThenDiff(t *testing.T) {
	s, dir := startPlanhost(t, 80, "revise.yaml")
	s.review()
	s.answer("k")
	s.waitScreen("Feedback for the model")
	s.send("\x1b[200~Mention the README.\nAnd keep it short.\x1b[201~")
	s.waitScreen("And keep it short.")
	s.send("\r")
	// The revised plan is reviewed with what changed beside the full text.
	screen := s.waitScreen("What changed since the plan you sent back")
	checkHas(t, "screen", screen, "+2. Mention it in the README.", "The plan", "Mention it in the README.")
	s.answer("a")
	s.waitScreen("Done.")
	s.send("/plans\r")
	screen = s.waitScreen("Plans presented in this session")
	checkHas(t, "screen", screen, "1. Add Goodbye — sent back with feedback", "2. Add Goodbye — approved")
	s.quit()
	res := exitResults(t, sessionEvents(t, dir))
	if len(res) != 2 || !res[0].IsError || !strings.Contains(res[0].Output, "Mention the README.\nAnd keep it short.") || res[1].IsError {
		t.Errorf("exit results = %+v", res)
	}
}

func TestPTYEditInEditor(t *testing.T) {
	s, dir := startPlanhost(t, 80, "approve.yaml", "EDITOR="+absPath(t, filepath.Join("testdata", "pty", "editor.sh")))
	s.review()
	s.answer("e")
	screen := s.waitScreen("You edited this plan")
	if !strings.Contains(screen, "+2. Edited step from the editor.") {
		t.Errorf("the edit's diff is not shown:\n%s", screen)
	}
	s.answer("a")
	s.waitScreen("Plan approved as you edited it.")
	s.waitScreen("Working on it.")
	s.quit()
	out := exitResult(t, dir)
	if out["approved"] != true || out["editedByUser"] != true || !strings.Contains(out["editedPlan"].(string), "2. Edited step from the editor.") {
		t.Errorf("result = %v", out)
	}
	// inspect tells the same story in the same words.
	checkInspectSays(t, dir, "Plan approved as you edited it.")
}

func TestPTYDismiss(t *testing.T) {
	s, dir := startPlanhost(t, 80, "approve.yaml")
	s.review()
	s.answer("d")
	screen := s.waitScreen("Plan dismissed.")
	if strings.Contains(screen, "dismissed the review") {
		t.Errorf("the model-facing text is on screen:\n%s", screen)
	}
	s.quit()
	res := exitResults(t, sessionEvents(t, dir))
	if len(res) != 1 || !res[0].IsError {
		t.Errorf("exit results = %+v", res)
	}
}

// TestPTYTypeAheadIsNotTheAnswer protects the review from keys typed for
// the chat just before it appeared.
func TestPTYTypeAheadIsNotTheAnswer(t *testing.T) {
	s, dir := startPlanhost(t, 80, "approve.yaml")
	s.send("/plan Add Goodbye\r")
	s.send("a") // typed at once: the review is not there yet, or just came up
	s.waitScreen("What now?")
	time.Sleep(reviewGraceWait)
	checkNoExitResult(t, dir, "the type-ahead")
	s.send("d")
	s.waitScreen("Plan dismissed.")
	s.quit()
}

func TestPTYShiftTabIdleAndRunningAndEscCancel(t *testing.T) {
	s, dir := startPlanhost(t, 80, "block.yaml")
	s.send("\x1b[Z") // shift+tab while idle: plan mode on now
	s.waitScreen(" plan  shift+tab")
	s.send("\x1b[Z") // and off again
	s.waitScreen(" default  shift+tab")
	s.send("Hello\r")
	s.waitScreen("working")
	s.send("\x1b[Z") // while running: queued
	s.waitScreen("default → plan")
	s.send("\x1b") // esc cancels the turn
	s.waitScreen("cancelled")
	// The queued switch is logged when the turn ends: idle shows plan, not
	// the switch still waiting.
	s.waitIdle()
	deadline := time.Now().Add(ptyWait)
	for sc := s.screen(); strings.Contains(sc, "default → plan") || !strings.Contains(sc, " plan  shift+tab"); sc = s.screen() {
		if time.Now().After(deadline) {
			t.Fatalf("idle screen does not show plan mode:\n%s", sc)
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.quit()
	var modes []bool
	cancelled := false
	for _, e := range sessionEvents(t, dir) {
		switch e.Type {
		case planmode.EventPlanMode:
			var m planmode.ModePayload
			json.Unmarshal(e.Data, &m)
			modes = append(modes, m.Active)
		case host.TypeTurnEnd:
			var te host.TurnEnd
			json.Unmarshal(e.Data, &te)
			cancelled = te.Reason == host.TurnCancelled
		}
	}
	if len(modes) != 3 || !modes[0] || modes[1] || !modes[2] {
		t.Errorf("plan/mode events = %v, want on, off, and on when the turn ended", modes)
	}
	if !cancelled {
		t.Error("the turn did not end cancelled")
	}
}

func TestPTYCtrlCTwiceExits(t *testing.T) {
	s, dir := startPlanhost(t, 80, "block.yaml")
	s.send("Hello\r")
	s.waitScreen("working")
	s.send("\x03")
	s.waitScreen("Ctrl-C again")
	s.send("\x03")
	if code := s.waitExit(5 * time.Second); code != exitOK {
		t.Fatalf("exit code %d", code)
	}
	s.checkRestored()
	if len(sessionEvents(t, dir)) == 0 {
		t.Error("empty session log")
	}
}

// TestPTYNarrowTerminalWraps protects the layout at 60 columns and on a
// resize: the review wraps at word boundaries, with nothing cut off.
func TestPTYNarrowTerminalWraps(t *testing.T) {
	s, _ := startPlanhost(t, 60, "approve.yaml")
	screen := s.review()
	if !strings.Contains(screen, "[k] Keep planning — stay in plan mode and tell the model") || !regexp.MustCompile(`(?m)^      what to change$`).MatchString(screen) {
		t.Errorf("the option is not wrapped at 60 columns:\n%s", screen)
	}
	s.resize(100, 30)
	s.waitScreen("[k] Keep planning — stay in plan mode and tell the model what to change")
	s.answer("a")
	s.waitScreen("Working on it.")
	s.quit()
}

// sgrColour matches an SGR sequence that sets a colour.
var sgrColour = regexp.MustCompile(`\x1b\[([0-9;]*;)?(3[0-9]|4[0-9]|9[0-7]|10[0-7])(;[0-9;]*)?m`)

func TestPTYNoColor(t *testing.T) {
	s, _ := startPlanhost(t, 80, "approve.yaml", "NO_COLOR=1")
	s.review()
	s.answer("a")
	s.waitScreen("Working on it.")
	s.quit()
	if m := sgrColour.FindString(s.raw()); m != "" {
		t.Errorf("colour sequence %q with NO_COLOR", m)
	}
}

func TestPTYChineseCatalog(t *testing.T) {
	s, dir := startPlanhost(t, 80, "approve.yaml", "LANG=zh_CN.UTF-8")
	s.send("/plan Add Goodbye\r")
	screen := s.waitScreen("计划审阅")
	checkHas(t, "screen", screen, "[a] 批准", "[k] 继续计划", "[d] 关闭")
	s.answer("a")
	s.waitScreen("计划已批准。")
	s.quit()
	// The protocol keeps the option's identifier.
	checkExitResult(t, dir)
}

func jsonDecode(b []byte, v any) error { return json.Unmarshal(b, v) }

// TestPTYMultiLinePromptAndContinue protects multi-line prompts (alt+enter)
// and -continue, which reopens the latest session with a recap.
func TestPTYMultiLinePromptAndContinue(t *testing.T) {
	s, dir := startPlanhost(t, 80, "approve.yaml")
	s.send("/plan First line")
	s.send("\x1b\r") // alt+enter
	s.send("second line\r")
	s.waitScreen("What now?")
	s.answer("d")
	s.waitScreen("Plan dismissed.")
	s.quit()
	var texts []string
	for _, e := range sessionEvents(t, dir) {
		if e.Type == host.TypeUserMessage && (e.Source == nil || e.Source.Kind == host.SourceUser) {
			var m host.UserMessage
			jsonUnmarshal(t, e.Data, &m)
			texts = append(texts, m.Content[0].Text)
		}
	}
	if len(texts) != 1 || texts[0] != "First line\nsecond line" {
		t.Errorf("user messages = %q", texts)
	}

	// The same state directory and sessions: -continue finds the session.
	args := ptyRunArgs(t, dir, filepath.Join("testdata", "pty", "approve.yaml"), "-continue")
	s2 := startPTYHome(t, 80, 30, s.home, nil, args...)
	screen := s2.waitScreen("Resumed session")
	checkHas(t, "recap", screen, "› First line second line", "assistant: Here is the plan.")
	s2.quit()
}
