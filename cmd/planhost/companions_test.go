package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// TestDemoCompanions plays the companions scene, then inspects its two
// session files, writes the HTML page of the first and opens it in
// headless Chromium.
func TestDemoCompanions(t *testing.T) {
	out, _ := mustMain(t, exitOK, "", "demo", "-scene", "companions", "-keep")
	files := regexp.MustCompile(`(?m)^session file: (.*)$`).FindAllStringSubmatch(out, -1)
	if len(files) != 2 {
		t.Fatalf("%d session files, want 2:\n%s", len(files), out)
	}

	t.Run("inspect prints the steps and the todo list", func(t *testing.T) {
		out, _ := mustMain(t, exitOK, "", "inspect", files[0][1])
		checkHas(t, "inspect output", out, "Plan approved.", "Add Goodbye — Completed: 3 of 3 steps done, 1 deviation", "✓ 2. Add a table test", "Todo — ", "▶ Write a release note")
		if strings.Contains(out, "\x1b[") {
			t.Error("inspect printed terminal escapes")
		}
	})

	page := filepath.Join(t.TempDir(), "session.html")
	t.Run("inspect -html writes a self-contained page", func(t *testing.T) {
		mustMain(t, exitOK, "", "inspect", "-html", page, files[0][1])
		b := readFile(t, page)
		html := string(b)
		for _, want := range []string{"<!DOCTYPE html>", "<style>", classCompleted, classPending, "Add Goodbye", "tested like Hello.", "Deviation (step 2):", "A table test instead of TestGoodbye"} {
			if !strings.Contains(html, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		for _, bad := range []string{"<script", "src=", "href="} {
			if strings.Contains(html, bad) {
				t.Errorf("page is not self-contained: it has %q", bad)
			}
		}
	})

	t.Run("the page renders in headless Chromium with the three status classes", func(t *testing.T) {
		chromium := findChromium(t)
		// The first session's page has completed steps and a todo list
		// with an item of each status.
		counts, shot := renderInChromium(t, chromium, page)
		if len(shot) < 1000 {
			t.Fatalf("screenshot is %d bytes", len(shot))
		}
		for _, class := range []string{classCompleted, classInProgress, classPending} {
			if counts[class] == 0 {
				t.Errorf("no element of class %s in the rendered page (counts %v)", class, counts)
			}
		}
	})

	t.Run("Chromium shows the plan rendered, under the plan's title, counted in words", func(t *testing.T) {
		browser := openInChromium(t, findChromium(t), page)
		title, err := chromedp.Run(browser, chromedp.Evaluate[string](`document.title`))
		if err != nil || title != "Add Goodbye" {
			t.Errorf("the page's title is %q (%v), want the plan's title", title, err)
		}
		heading, err := chromedp.Run(browser, chromedp.Evaluate[string](`document.querySelector(".plan h1").innerText`))
		if err != nil || heading != "Add Goodbye" {
			t.Errorf("the plan's heading is %q (%v), want it rendered", heading, err)
		}
		shown, err := chromedp.Run(browser, chromedp.Evaluate[string](`document.body.innerText`))
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"# Add Goodbye", "1 deviations"} {
			if strings.Contains(shown, bad) {
				t.Errorf("the page shows %q:\n%s", bad, shown)
			}
		}
		if !strings.Contains(shown, "1 deviation") {
			t.Errorf("the page does not count the deviation:\n%s", shown)
		}
	})
}

// TestTheHTMLPageIsTitledByTheSession: the page's title is the session's
// first plan's title, else its first message, else its ID.
func TestTheHTMLPageIsTitledByTheSession(t *testing.T) {
	user := func(seq uint64, text string) host.Event {
		return host.Event{Seq: seq, Type: host.TypeUserMessage, Data: mustJSON(t, host.UserMessage{Content: []host.Block{host.TextBlock(text)}})}
	}
	exit := func(seq uint64, plan string) host.Event {
		return host.Event{Seq: seq, Type: host.TypeToolCall, Data: mustJSON(t, host.ToolCall{ID: "c1", Name: planmode.ExitToolName, Input: mustJSON(t, map[string]string{"plan": plan})})}
	}
	tests := []struct {
		name   string
		events []host.Event
		want   string
	}{
		{"the first plan's title", []host.Event{user(1, "Add Goodbye, please"), exit(2, "# Add Goodbye\n\n1. Do it.")}, "<title>Add Goodbye</title>"},
		{"the first message", []host.Event{user(1, "Add Goodbye\nand test it"), exit(2, "no heading")}, "<title>Add Goodbye</title>"},
		{"a long first message clipped", []host.Event{user(1, strings.Repeat("word ", 40))}, "…</title>"},
		{"the ID when there is neither", nil, "<title>Session s1</title>"},
		{"markup in a title escaped", []host.Event{user(1, "<b>bold</b> move")}, "<title>&lt;b&gt;bold&lt;/b&gt; move</title>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := page(tt.events...); !strings.Contains(got, tt.want) {
				t.Errorf("the page lacks %q:\n%s", tt.want, got)
			}
		})
	}
}

// The CSS classes of the page's list items, one per status.
const (
	classCompleted  = "pm-completed"
	classInProgress = "pm-in-progress"
	classPending    = "pm-pending"
)

// envRequireChromium makes a missing Chromium a failure (CI installs it).
const envRequireChromium = "PLANMODE_REQUIRE_CHROMIUM"

// findChromium returns Chromium's path; without one the test is skipped,
// saying so, unless envRequireChromium is set.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv(envRequireChromium) != "" || os.Getenv("CI") == "true" {
		t.Fatalf("no Chromium on PATH and %s or CI=true is set (apt-get install chromium)", envRequireChromium)
	}
	t.Skipf("skipped: no Chromium on PATH (apt-get install chromium; .ci/run does); CI=true or %s makes this a failure", envRequireChromium)
	return ""
}

// openInChromium opens page in a fresh headless Chromium and returns the
// browser's context, which ends with the test.
func openInChromium(t *testing.T, chromium, page string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelBrowser)
	if _, err := chromedp.Run(browser, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("chromium: navigate: %v", err)
	}
	if _, err := chromedp.Run(browser, chromedp.WaitVisible(chromedp.CSS("body"))); err != nil {
		t.Fatalf("chromium: wait: %v", err)
	}
	return browser
}

// renderInChromium opens page in a fresh headless Chromium and returns how
// many elements carry each status class and a full-page screenshot (PNG).
func renderInChromium(t *testing.T, chromium, page string) (counts map[string]int, shot []byte) {
	browser := openInChromium(t, chromium, page)
	counts = map[string]int{}
	for _, class := range []string{classCompleted, classInProgress, classPending} {
		n, err := chromedp.Run(browser, chromedp.Evaluate[int](`document.querySelectorAll(".`+class+`").length`))
		if err != nil {
			t.Fatalf("chromium: query %s: %v", class, err)
		}
		counts[class] = n
	}
	shot, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
	if len(shot) > 8 && string(shot[1:4]) != "PNG" {
		t.Errorf("the screenshot is not a PNG")
	}
	if err != nil {
		t.Fatalf("chromium: screenshot: %v", err)
	}
	return counts, shot
}

// TestRunRefusesDocumentsInsideWorkspace protects the agent's documents
// (its todo list) from the model's write_file, like the session logs.
func TestRunRefusesDocumentsInsideWorkspace(t *testing.T) {
	dir := newRunDir(t)
	script := filepath.Join("testdata", "run", "script.yaml")
	_, msg := mustMain(t, exitUsage, "hello\n", runArgs(dir, script, "-documents", filepath.Join(dir, "ws", "docs"))...)
	if !strings.Contains(msg, "documents directory") || !strings.Contains(msg, "is inside the workspace") {
		t.Fatalf("stderr = %q", msg)
	}
}

// TestRunKeepsTheTodoListAcrossSessions runs two sessions of the default
// agent over one documents directory: the second reads what the first
// wrote.
func TestRunKeepsTheTodoListAcrossSessions(t *testing.T) {
	write, read := todoSessions(t, "carry me over", "-documents", filepath.Join(t.TempDir(), "docs"))
	if !strings.Contains(write, "▶ [high] carry me over") {
		t.Fatalf("session 1 shows no todo box:\n%s", write)
	}
	if !strings.Contains(read, `"content":"carry me over"`) {
		t.Fatalf("session 2 did not read the list:\n%s", read)
	}
}

// todoSessions runs two sessions of the default agent with the todo
// plugin and the flags extra: the first writes a todo item with content,
// the second reads the list. It returns the output of each.
func todoSessions(t *testing.T, content string, extra ...string) (write, read string) {
	t.Helper()
	dir := newRunDir(t)
	cfg := filepath.Join(dir, "deploy.yaml")
	if err := os.WriteFile(cfg, []byte("plugins:\n  todo:\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := writeScript(t, dir, "w.yaml", "steps:\n  - toolCalls:\n      - name: todo_write\n        input: {todos: [{id: a, content: "+content+", status: in_progress, priority: high}]}\n  - text: noted\n")
	r := writeScript(t, dir, "r.yaml", "steps:\n  - toolCalls:\n      - name: todo_read\n        input: {}\n  - text: read\n")
	write, _ = mustMain(t, exitOK, "go\n", runArgs(dir, w, append([]string{"-config", cfg}, extra...)...)...)
	read, _ = mustMain(t, exitOK, "go\n", runArgs(dir, r, append([]string{"-config", cfg}, extra...)...)...)
	return write, read
}
