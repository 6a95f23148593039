package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/dshgo/planmode"

	"github.com/dshgo/planmode/cmd/planhost/internal/inspect"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/safetext"
	"github.com/dshgo/planmode/store"
)

// hostile is model text that would show "2. Run the unit tests." over the
// real step in a terminal, clear the screen, reorder a line and hide a
// suffix; the character references would do the same after Markdown.
const hostile = "# Plan\n\n1. Read the code.\n2. rm -rf ~/projects\r2. Run the unit tests.\n" +
	"3. \x1b[2J\x1b[Hcleared \x1b[8mhidden\x1b[0m \u202eexe.txt \u2066iso\u2069 \u009b2J zero\u200bwidth\n" +
	"4. &#27;[8mref &#x202E;rev &rlm;mark\n"

func hostileEvents(t *testing.T) []host.Event {
	t.Helper()
	mk := func(typ string, v any) host.Event { return host.Event{Type: typ, Data: mustJSON(t, v)} }
	args, _ := json.Marshal(map[string]string{"path": "a\x1b[2J\u202e", "k\r": "v"})
	return []host.Event{
		mk(host.TypeAssistantMessage, host.AssistantMessage{Text: hostile}),
		mk(host.TypeToolCall, host.ToolCall{ID: "1", Name: "read_file\r", Input: args}),
		mk(host.TypeToolResult, host.ToolResult{CallID: "1", Name: "read_file", Output: "line\x1b[2J\r\u202e"}),
		mk(host.TypeToolCall, host.ToolCall{ID: "2", Name: planmode.ExitToolName, Input: mustJSON(t, map[string]string{"plan": hostile})}),
		mk(host.TypeToolResult, host.ToolResult{CallID: "2", Name: planmode.ExitToolName, Output: "x\r\x1b[2J", IsError: true,
			Outcome: string(planmode.ExitKeepPlanning)}),
		{Type: host.TypeUserMessage, Source: &host.Source{Kind: host.SourcePlugin, Plugin: "p\x1b"}, Data: mustJSON(t, host.UserMessage{Content: []host.Block{host.TextBlock(hostile)}})},
		mk(host.TypeTurnEnd, host.TurnEnd{Turn: 1, Reason: host.TurnError, Error: "boom\r\x1b[2Jok"}),
	}
}

// TestModelTextCannotHideThePlan protects the reviewer from text that
// would hide part of a plan: in piped and terminal output, every string
// from the model, a tool or the log is shown with carriage returns, escape
// sequences, other controls and bidi characters made visible; only the
// renderer's own colours reach a terminal.
func TestModelTextCannotHideThePlan(t *testing.T) {
	for _, style := range []string{mdview.StyleNoTTY, mdview.StyleDark} {
		t.Run(style, func(t *testing.T) {
			md, err := mdview.New(style, markdownWidth)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			pl := &present.Plain{W: &out, Cat: present.English, Verbose: true, Markdown: md.Render}
			tr := present.NewTranscript(present.English, true)
			for _, e := range hostileEvents(t) {
				pl.Items(tr.Add(e))
			}
			req := host.AskRequest{Kind: host.AskConsent, Questions: []host.Question{{
				ID: "q", Header: "Plan\r\u202e", Question: "Approve?\x1b[2J", Detail: hostile + "\nmore",
				Options: []host.Option{{Label: "Approve\r", Description: "go\u202e", Role: host.RoleApprove}, {Label: "Keep"}},
			}}}
			pl.Question(present.English.Question(req, 0, host.Log{}, false))
			got := out.String()
			if style == mdview.StyleNoTTY {
				if !safetext.Safe(got) {
					t.Errorf("piped output has unsafe characters:\n%q", got)
				}
			} else if safetext.EscapeExceptSGR(got) != got {
				t.Errorf("terminal output has more than colour sequences:\n%q", got)
			}
			for _, want := range []string{`rm -rf ~/projects\r2. Run the unit tests.`, `\u202eexe.txt`, `\x1b[2J`, `&#27;`, `Approve\r`} {
				if !strings.Contains(got, want) {
					t.Errorf("output does not show %q:\n%s", want, got)
				}
			}
		})
	}
}

// TestInspectShowsLogTextEscaped protects a reader of inspect: texts from
// the log are shown escaped, and the JSON keeps their meaning with the
// characters written as \u escapes.
func TestInspectShowsLogTextEscaped(t *testing.T) {
	d, err := store.OpenDir(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := d.Create("hostile")
	if err != nil {
		t.Fatal(err)
	}
	feedback := host.ToolErrorPrefix + "keep planning: 2. rm -rf ~\r2. tests \u202e\x1b[2J"
	for _, e := range []host.Event{
		{Type: host.TypeToolResult, Time: time.Now(), Data: mustJSON(t, host.ToolResult{CallID: "1", Name: planmode.ExitToolName, Output: feedback, IsError: true})},
		{Type: host.TypeTurnEnd, Time: time.Now(), Data: mustJSON(t, host.TurnEnd{Turn: 1, Reason: host.TurnError, Error: "boom\r\x1b]0;t\x07"})},
	} {
		if _, err := sess.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	file := d.Path("hostile")
	d.Close()
	for _, args := range [][]string{{"inspect", file}, {"inspect", "-json", file}} {
		out, _ := mustMain(t, exitOK, "", args...)
		if !safetext.Safe(out) {
			t.Errorf("%v shows unsafe characters:\n%q", args, out)
		}
		if len(args) == 2 && (!strings.Contains(out, `tests \u202e\x1b[2J`) || !strings.Contains(out, `boom\r\x1b]0;t\a`)) {
			t.Errorf("inspect does not show the escapes:\n%s", out)
		}
		if len(args) == 3 {
			var ins inspect.Inspection
			if err := json.Unmarshal([]byte(out), &ins); err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(ins.Items, func(it present.Item) bool { return strings.Contains(it.Text, "tests \u202e\x1b[2J") }) {
				t.Errorf("JSON lost the text: %+v", ins.Items)
			}
		}
	}
}

// TestErrorsShowOutsideTextEscaped protects the terminal from error texts
// that quote outside input (a file name, a log's content): planhost's
// error lines escape them too.
func TestErrorsShowOutsideTextEscaped(t *testing.T) {
	_, errOut := mustMain(t, exitUsage, "", "inspect", "x\x1b]0;owned\a\u202e.jsonl")
	if !safetext.Safe(errOut) || !strings.Contains(errOut, `x\x1b]0;owned\a\u202e.jsonl`) {
		t.Errorf("stderr = %q, want the name escaped", errOut)
	}
}

// TestRenderedPlanShowsNoEscapeNoise protects ordinary plans from the
// escaping: what glamour itself draws (colours, code highlighting, tables)
// reaches the terminal as it is, with nothing shown as an escape; a link
// shows its target after its text.
func TestRenderedPlanShowsNoEscapeNoise(t *testing.T) {
	md, err := mdview.New(mdview.StyleDark, markdownWidth)
	if err != nil {
		t.Fatal(err)
	}
	plan := "# Title\n\n1. See [the docs](https://docs.example/a?b=c) and `code` **bold**\n\n```go\nfunc main() {}\n```\n\n" +
		"> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [ ] task\n\n---\n\n![img](http://x/y.png) café 计划 👩‍💻 &amp; &#233;\n"
	var out bytes.Buffer
	pl := &present.Plain{W: &out, Cat: present.English, Markdown: md.Render}
	pl.Item(present.Item{Kind: present.Plan, Title: "Title", Text: plan})
	got := out.String()
	if strings.Contains(got, `\x`) || strings.Contains(got, `\u`) || strings.Contains(got, `\a`) {
		t.Errorf("the rendered plan shows escapes:\n%q", got)
	}
	if plain := ansi.Strip(got); !strings.Contains(plain, "the docs (https://docs.example/a?b=c)") {
		t.Errorf("the link is not shown with its target:\n%q", plain)
	}
}
