package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/internal/saveplan"
)

// startReview runs "planhost run" with plan-review's extra answers (a
// seven-answer review menu) and a scripted model in a cols×rows terminal.
func startReview(t *testing.T, cols, rows uint16, script string, env []string, extra ...string) (*ptySession, string) {
	t.Helper()
	dir := newRunDir(t)
	args := ptyRunArgs(t, dir, filepath.Join("testdata", "pty", script), append([]string{"-config", filepath.Join("testdata", "pty", "review-deploy.yaml")}, extra...)...)
	s := startPTY(t, cols, rows, env, args...)
	s.waitScreen("shift+tab")
	return s, dir
}

// reviewWords are one language's words the review test waits for.
type reviewWords struct {
	lang, request, feedback, question, collapsed, shown, edited, approved, done, help, plans string
	// planLines are lines of the revised plan that must all be on the
	// review screen at 100×32.
	planLines []string
}

var reviewLanguages = []reviewWords{
	{
		lang: "en", request: "Add Goodbye", feedback: "Be more precise.", question: "What now?",
		collapsed: "lines added", shown: "· v hides it", edited: "You edited this plan", approved: "Plan approved as you edited it.",
		done: "Done.", help: "In a plan review:", plans: "Plans presented in this session",
		planLines: []string{"Goodbye(name string) string", "2. Test it in", "3. Mention", "4. Run", "on the package."},
	},
	{
		lang: "zh", request: "添加告别函数", feedback: "请写得更具体。", question: "接下来？",
		collapsed: "新增", shown: "按 v 收起", edited: "你编辑了这份计划", approved: "计划已按你的编辑批准。",
		done: "完成。", help: "计划审阅中：", plans: "本会话提交过的计划",
		planLines: []string{"1. 在问候模块中", "2. 用表格测试它", "3. 在说明文档", "4. 对整个包运行"},
	},
}

// TestPTYReviewScreens drives a whole session through the review in each
// language at 100×32 with seven answers: the revised plan stays readable
// (a long diff is one line until v shows it), the status line waits for
// the user, the edit is what the transcript shows as approved, and in
// Chinese no English word reaches the screen. The revised review's screen
// is docs/screens/review.LANG.txt (-update rewrites it).
func TestPTYReviewScreens(t *testing.T) {
	for _, w := range reviewLanguages {
		t.Run(w.lang, func(t *testing.T) {
			editor := absPath(t, filepath.Join("testdata", "pty", map[string]string{"en": "editor.sh", "zh": "editor-zh.sh"}[w.lang]))
			s, _ := startReview(t, 100, 32, "review."+w.lang+".yaml", []string{"EDITOR=" + editor}, "-lang", w.lang)
			var screens []string
			shot := func(sc string) string { screens = append(screens, sc); return sc }
			shot(s.screen())
			s.send("/plan " + w.request + "\r")
			shot(s.waitScreen(w.question))
			s.answer("k")
			time.Sleep(100 * time.Millisecond)
			s.send(w.feedback + "\r")
			review := shot(s.waitScreen(w.collapsed))
			checkHas(t, "the revised review at 100×32", review, append([]string{w.question, "[s] ", "[w] ", "[c] ", "[x] "}, w.planLines...)...)
			if strings.Contains(review, "working") || strings.Contains(review, "工作中") {
				t.Errorf("the status line counts while the review waits:\n%s", review)
			}
			checkGoldenScreen(t, filepath.Join("..", "..", "docs", "screens", "review."+w.lang+".txt"), review)
			s.answer("v")
			diff := shot(s.waitScreen(w.shown))
			if !regexp.MustCompile(`(?m)^\+4\. `).MatchString(diff) || !regexp.MustCompile(`(?m)^-2\. `).MatchString(diff) {
				t.Errorf("v does not show the diff:\n%s", diff)
			}
			s.send("v")
			s.waitScreen(w.collapsed)
			s.send("e")
			// The output, not the emulator's screen: the emulator does not
			// always show the frame drawn on returning from the editor.
			s.waitFor(w.edited)
			s.answer("a")
			s.waitScreen(w.approved)
			after := shot(s.waitScreen(w.done))
			_, below, _ := strings.Cut(after, w.approved)
			if !strings.Contains(below, "5. ") {
				t.Errorf("the transcript does not show the approved edit below %q:\n%s", w.approved, after)
			}
			s.send("/help\r")
			shot(s.waitScreen(w.help))
			s.send("/plans\r")
			shot(s.waitScreen(w.plans))
			s.quit()
			if w.lang == "zh" {
				for _, sc := range screens {
					if words := englishWords(sc); len(words) > 0 {
						t.Errorf("English on the Chinese screen: %q\n%s", words, sc)
					}
				}
			}
		})
	}
}

// allowedASCII are the words a Chinese screen may show: keys, command and
// tool names, flags.
var allowedASCII = []string{"shift", "tab", "esc", "ctrl", "enter", "alt", "pgup", "pgdown", "up", "down", "off", "reopen", "exit_plan_mode"}

// englishWords lists the words of ASCII letters on screen that are not
// names: paths and commands (anything with a slash), session IDs and
// their pieces where a path wraps, single
// letters (keys) and allowedASCII are left out.
func englishWords(screen string) []string {
	var out []string
	for _, field := range strings.Fields(screen) {
		if strings.Contains(field, "/") || regexp.MustCompile(`^[(（]?[0-9a-f]{6,}`).MatchString(field) {
			continue
		}
		for _, word := range regexp.MustCompile(`[A-Za-z][A-Za-z_]+`).FindAllString(field, -1) {
			if !slices.Contains(allowedASCII, strings.ToLower(word)) {
				out = append(out, word)
			}
		}
	}
	return out
}

// checkGoldenScreen compares a screen (trailing spaces cut) with a text
// capture in the docs; -update rewrites it.
func checkGoldenScreen(t *testing.T, path, screen string) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	checkGolden(t, path, strings.TrimRight(strings.Join(lines, "\n"), "\n")+"\n")
}

// TestPTYEditorFailureIsShown protects Edit from a missing or failing
// $EDITOR: the review says what went wrong, stays open, and the log file
// keeps it.
func TestPTYEditorFailureIsShown(t *testing.T) {
	tests := []struct{ name, editor, want string }{
		{"missing", "/nonexistent/editor", "no such file"},
		{"failing", "false", "exit status 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := startPlanhost(t, 80, "approve.yaml", "EDITOR="+tt.editor)
			s.review()
			s.answer("e")
			screen := s.waitScreen("The editor failed")
			if !strings.Contains(screen, tt.want) || !strings.Contains(screen, "What now?") {
				t.Errorf("screen:\n%s", screen)
			}
			s.send("d")
			s.waitScreen("Plan dismissed.")
			s.quit()
			logs, _ := filepath.Glob(filepath.Join(s.home, "state", "*", "planhost.log"))
			if len(logs) != 1 {
				t.Fatalf("log files %v", logs)
			}
			b, err := os.ReadFile(logs[0])
			if err != nil || !strings.Contains(string(b), "the editor failed") || !strings.Contains(string(b), tt.editor) {
				t.Errorf("log %q, %v", b, err)
			}
		})
	}
}

// TestPTYInternalLinesOnlyWithVerbose protects the transcript from the
// host's internal lines and the model's text, unless -verbose asks.
func TestPTYInternalLinesOnlyWithVerbose(t *testing.T) {
	internal := []string{"· request initial", "switch pending", `← {"approved":true}`}
	for _, verbose := range []bool{false, true} {
		dir := newRunDir(t)
		var extra []string
		if verbose {
			extra = []string{"-verbose"}
		}
		s := startPTY(t, 100, 40, nil, ptyRunArgs(t, dir, filepath.Join("testdata", "pty", "approve.yaml"), extra...)...)
		s.waitScreen("shift+tab")
		s.review()
		s.answer("a")
		screen := s.waitScreen("Working on it.")
		for _, line := range internal {
			if strings.Contains(screen, line) != verbose {
				t.Errorf("verbose %t: %q shown %t:\n%s", verbose, line, !verbose, screen)
			}
		}
		s.quit()
	}
}

// TestPTYSendingJumpsToTheBottom protects the transcript's scroll: what is
// sent while scrolled up shows its answer.
func TestPTYSendingJumpsToTheBottom(t *testing.T) {
	s, _ := startPlanhost(t, 80, "approve.yaml")
	s.send("/help\r")
	s.waitScreen("/quit")
	s.send("/help\r")
	time.Sleep(200 * time.Millisecond)
	s.send("\x1b[5~\x1b[5~") // pgup twice
	time.Sleep(200 * time.Millisecond)
	s.send("/plans\r")
	s.waitScreen("No plan was presented in this session yet.")
	s.quit()
}

// TestPTYSavePlanAndStop protects "Save plan and stop": plan mode is left,
// nothing is approved, the log keeps the plan and the model is told.
func TestPTYSavePlanAndStop(t *testing.T) {
	s, dir := startPlanhost(t, 80, "approve.yaml")
	s.send("/plan Add Goodbye\r")
	s.waitScreen("[s] Save plan and stop")
	s.answer("s")
	s.waitScreen("Plan saved; nothing was carried out.")
	s.waitScreen(" default ")
	s.send("/plans\r")
	s.waitScreen("1. Add Goodbye — saved; nothing was carried out")
	s.quit()
	res := exitResults(t, sessionEvents(t, dir))
	if len(res) != 1 || res[0].IsError || !saveplan.Saved(res[0].Output) || !strings.Contains(res[0].Output, "Add `Goodbye`") ||
		strings.Contains(res[0].Output, `"approved":true`) {
		t.Errorf("exit results = %+v", res)
	}
	// inspect tells the same story in the same words.
	checkInspectSays(t, dir, "Plan saved; nothing was carried out.")
}

// TestPTYReopenMarksThePlan protects "/plan reopen": plan mode is on again
// and /plans marks the approved plan as the reopened draft.
func TestPTYReopenMarksThePlan(t *testing.T) {
	s, _ := startPlanhost(t, 100, "approve.yaml")
	s.review()
	s.answer("a")
	s.waitScreen("Working on it.")
	s.waitScreen(" default ")
	s.send("/plan reopen\r")
	s.waitScreen("Plan 1 is reopened as the working draft")
	s.send("/plans\r")
	s.waitScreen("1. Add Goodbye — approved; reopened as the working draft")
	s.quit()
}
