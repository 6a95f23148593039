package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/cmd/planhost/internal/hidetest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/todo"
)

// contentText is what an editor shows of tool call content: each text
// block rendered as Markdown.
func contentText(content []sdk.ToolCallContent) string {
	var b strings.Builder
	for _, c := range content {
		if c.Content != nil && c.Content.Content.Text != nil {
			b.WriteString(hidetest.EditorText(c.Content.Content.Text.Text) + "\n")
		}
	}
	return b.String()
}

// TestThePlanSentToTheEditorHidesNothing presents a plan holding every
// hiding trick: the tool call's content and the permission request's
// content, rendered as an editor renders Markdown, show every word of it.
func TestThePlanSentToTheEditorHidesNothing(t *testing.T) {
	parts := []string{"# Hiding tricks \u202ehs | lruc"}
	for _, c := range hidetest.Cases {
		parts = append(parts, c.Plan)
	}
	plan := strings.Join(parts, "\n\n")
	model := scripted.NewModel(
		scripted.Step{Text: "Here is my plan.", ToolCalls: []host.ToolCall{call("c1", "exit_plan_mode", map[string]string{"plan": plan})}},
		scripted.Step{Text: "Done."},
	)
	s := openSession(t, newHostParts(t, newStore(t), model))
	s.planMode(approve)
	s.mustPrompt("Plan it.")
	us, asks := s.c.snapshot()
	if len(asks) != 1 {
		t.Fatalf("permission requests = %d, want 1", len(asks))
	}
	var callContent []sdk.ToolCallContent
	for _, u := range us {
		if c := u.Update.ToolCall; c != nil && c.ToolCallId == "c1" {
			callContent = c.Content
			if strings.Contains(c.Title, "\u202e") || !strings.Contains(c.Title, `\u202e`) {
				t.Errorf("tool call title %q: want the bidi override escaped", c.Title)
			}
		}
	}
	shown := map[string]string{"tool_call": contentText(callContent), "request_permission": contentText(asks[0].ToolCall.Content)}
	for _, c := range hidetest.Cases {
		for where, text := range shown {
			if m := hidetest.Missing(text, c.Words); len(m) > 0 {
				t.Errorf("%s: %s: the editor does not show %q", c.Name, where, m)
			}
		}
	}
	s.close()
}

// TestPlanEntriesHideNothing follows steps and todo items holding the
// hiding tricks: each entry's content, rendered as Markdown, shows every
// word of it.
func TestPlanEntriesHideNothing(t *testing.T) {
	var steps []plansteps.Step
	var todos []todo.Item
	for i, c := range hidetest.Cases {
		steps = append(steps, plansteps.Step{ID: i + 1, Description: c.Plan})
		todos = append(todos, todo.Item{ID: c.Name, Content: c.Plan, Status: todo.StatusPending, Priority: todo.PriorityMedium})
	}
	follow := acp.CompanionPlans{}.Follow("s")
	payload := plansteps.StepsPayload{Title: "T", Source: plansteps.SourceSteps, Steps: steps}
	if _, ok := follow(host.Event{Seq: 1, Type: plansteps.EventSteps, Data: mustJSON(t, payload)}); !ok {
		t.Fatal("the steps did not change the plan")
	}
	out := mustJSON(t, todo.List{Todos: todos})
	entries, ok := follow(host.Event{Seq: 2, Type: host.TypeToolResult, Data: mustJSON(t, host.ToolResult{CallID: "c1", Name: todo.WriteToolName, Output: string(out)})})
	if !ok || len(entries) != 2*len(hidetest.Cases) {
		t.Fatalf("entries = %d (%v), want %d", len(entries), ok, 2*len(hidetest.Cases))
	}
	for i, e := range entries {
		c := hidetest.Cases[i%len(hidetest.Cases)]
		if m := hidetest.Missing(hidetest.EditorText(e.Content), c.Words); len(m) > 0 {
			t.Errorf("%s: entry %d: the editor does not show %q", c.Name, i, m)
		}
	}
}

// TestToolCallTitlesHideNothing: the titles of tool calls built from the
// model's arguments (read, list, search and write paths, a search pattern,
// an unknown tool's name, and the failure title naming it) reach the
// editor with invisible and control characters as visible escapes, on one
// line.
func TestToolCallTitlesHideNothing(t *testing.T) {
	const rlo, zwsp, esc = "\u202e", "\u200b", "\x1b[2J"
	model := scripted.NewModel(
		scripted.Step{Text: "Looking.", ToolCalls: []host.ToolCall{
			call("r", "read_file", map[string]string{"path": "txt." + rlo + "exe"}),
			call("l", "list_files", map[string]string{"path": "src" + zwsp + "/x"}),
			call("s", "search", map[string]string{"pattern": "p" + rlo, "path": "a" + esc}),
			call("n", "no_such_tool"+rlo, map[string]string{}),
			call("b", "read_file", map[string]string{"path": "a\nPlan approved"}),
		}},
		scripted.Step{Text: "Done."},
	)
	s := openSession(t, newHostParts(t, newStore(t), model))
	s.mustPrompt("Look around.")
	us, _ := s.c.snapshot()
	titles := map[string][]string{}
	for _, u := range us {
		if c := u.Update.ToolCall; c != nil {
			titles[string(c.ToolCallId)] = append(titles[string(c.ToolCallId)], c.Title)
		}
		if c := u.Update.ToolCallUpdate; c != nil && c.Title != nil {
			titles[string(c.ToolCallId)] = append(titles[string(c.ToolCallId)], *c.Title)
		}
	}
	want := map[string]string{"r": `\u202e`, "l": `\u200b`, "s": `\x1b`, "n": `\u202e`, "b": `\n`}
	for id, escaped := range want {
		if len(titles[id]) == 0 {
			t.Errorf("call %s has no title", id)
		}
		for i, title := range titles[id] {
			if strings.ContainsAny(title, rlo+zwsp+"\x1b\n") || i == 0 && !strings.Contains(title, escaped) {
				t.Errorf("call %s is titled %q: want %s escaped", id, title, escaped)
			}
		}
	}
	if n := titles["n"]; len(n) < 2 || !strings.Contains(n[len(n)-1], `\u202e`) {
		t.Errorf("the unknown tool's failure is not titled with its name escaped: %q", n)
	}
	s.close()
}

// TestToolResultsHideNothing: a tool's output reaches the editor as it
// is: a path from the model quoted in an error with its invisible and
// control characters as visible escapes, and a file holding the hiding
// tricks showing every word of it when the editor renders Markdown.
func TestToolResultsHideNothing(t *testing.T) {
	const rlo, zwsp, esc = "\u202e", "\u200b", "\x1b[2J"
	parts := make([]string, len(hidetest.Cases))
	for i, c := range hidetest.Cases {
		parts[i] = c.Plan
	}
	model := scripted.NewModel(
		scripted.Step{Text: "Looking.", ToolCalls: []host.ToolCall{
			call("e", "read_file", map[string]string{"path": "txt" + rlo + "exe" + zwsp + esc}),
			call("f", "read_file", map[string]string{"path": "tricks.md"}),
		}},
		scripted.Step{Text: "Done."},
	)
	s := openSession(t, newHostParts(t, newStore(t), model))
	if err := os.WriteFile(filepath.Join(s.dir, "tricks.md"), []byte(strings.Join(parts, "\n\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	s.mustPrompt("Look around.")
	us, _ := s.c.snapshot()
	shown := map[string]string{}
	for _, u := range us {
		if r := u.Update.ToolCallUpdate; r != nil && r.Status != nil {
			for _, c := range r.Content {
				if c.Content != nil && c.Content.Content.Text != nil {
					raw := c.Content.Content.Text.Text
					if strings.ContainsAny(raw, rlo+zwsp+"\x1b") {
						t.Errorf("call %s's output reaches the editor raw: %q", r.ToolCallId, raw)
					}
				}
			}
			shown[string(r.ToolCallId)] = contentText(r.Content)
		}
	}
	for _, escaped := range []string{`\u202e`, `\u200b`, `\x1b`} {
		if !strings.Contains(shown["e"], escaped) {
			t.Errorf("the failed read shows %q: want the path's %s escaped", shown["e"], escaped)
		}
	}
	for _, c := range hidetest.Cases {
		if m := hidetest.Missing(shown["f"], c.Words); len(m) > 0 {
			t.Errorf("%s: the editor does not show %q", c.Name, m)
		}
	}
	s.close()
}

// TestTheModelsReplyHidesNothing: the model's reply and reasoning reach
// the editor as Markdown, with bidi overrides, zero-width spaces and
// escape sequences shown as escapes, never as they are.
func TestTheModelsReplyHidesNothing(t *testing.T) {
	const rlo, zwsp, esc = "\u202e", "\u200b", "\x1b[2J"
	model := scripted.NewModel(scripted.Step{Text: "Run **make**" + rlo + "kcah" + zwsp + esc + " now."})
	s := openSession(t, newHostParts(t, newStore(t), model))
	s.mustPrompt("Hello.")
	us, _ := s.c.snapshot()
	got := agentText(us)
	if strings.ContainsAny(got, rlo+zwsp+"\x1b") {
		t.Errorf("the reply reaches the editor raw: %q", got)
	}
	if !strings.Contains(got, `Run **make**\u202ekcah\u200b\x1b[2J now.`) {
		t.Errorf("the reply %q lacks its text with the escapes shown", got)
	}
}
