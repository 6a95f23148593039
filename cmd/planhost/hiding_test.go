package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/e2etest"

	"github.com/chromedp/chromedp"

	"github.com/charmbracelet/x/ansi"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/hidetest"
	"github.com/dshgo/planmode/cmd/planhost/internal/inspect"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/todo"
)

// TestTheConsoleReviewShowsEveryWord puts each hiding trick to the line
// console's review, piped and on a terminal: every word of the plan is
// printed (styles stripped), and nothing but colours reaches the terminal.
func TestTheConsoleReviewShowsEveryWord(t *testing.T) {
	for _, style := range []string{mdview.StyleNoTTY, mdview.StyleDark} {
		md, err := mdview.New(style, markdownWidth)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range hidetest.Cases {
			t.Run(style+"/"+c.Name, func(t *testing.T) {
				var out bytes.Buffer
				pl := &present.Plain{W: &out, Cat: present.English, Markdown: md.Render}
				req := host.AskRequest{Kind: host.AskReview, Questions: []host.Question{{ID: e2etest.ReviewQuestionID, Header: "Plan review",
					Question: "Approve?", Detail: c.Plan, Options: []host.Option{{Label: e2etest.ReviewApprove, Role: host.RoleApprove},
						{Label: e2etest.ReviewKeepPlanning, Role: host.RoleKeepPlanning}}}}}
				pl.Question(present.English.Question(req, 0, host.Log{}, true))
				plain := ansi.Strip(out.String())
				if strings.Contains(plain, "\x1b") {
					t.Errorf("an escape other than a colour reached the terminal:\n%q", plain)
				}
				if m := hidetest.Missing(plain, c.Words); len(m) > 0 {
					t.Errorf("missing %q in\n%s", m, plain)
				}
			})
		}
	}
}

// approvedPlanEvents are the events of plan approved in an
// exit_plan_mode call with ID id.
func approvedPlanEvents(t *testing.T, id, plan string) []host.Event {
	return []host.Event{
		{Type: host.TypeToolCall, Data: mustJSON(t, host.ToolCall{ID: id, Name: planmode.ExitToolName, Input: mustJSON(t, map[string]string{"plan": plan})})},
		{Type: host.TypeToolResult, Data: mustJSON(t, host.ToolResult{CallID: id, Name: planmode.ExitToolName, Output: `{"approved":true}`,
			Outcome: string(planmode.ExitApproved)})},
	}
}

// page is the inspect page of a log of events.
func page(events ...host.Event) string {
	for i := range events {
		events[i].Seq = uint64(i + 1)
	}
	return inspect.Page("s1", host.LogOf(events), present.English)
}

// TestTheHTMLPageShowsEveryWord writes each hiding trick as an approved
// plan to the inspect page: the page's visible text holds every word.
func TestTheHTMLPageShowsEveryWord(t *testing.T) {
	for _, c := range hidetest.Cases {
		t.Run(c.Name, func(t *testing.T) {
			got := page(approvedPlanEvents(t, "1", c.Plan)...)
			if m := hidetest.Missing(hidetest.PageText(got), c.Words); len(m) > 0 {
				t.Errorf("missing %q in the page's text:\n%s", m, hidetest.PageText(got))
			}
		})
	}
}

// TestTheHTMLPageShowsEveryWordOfStepsAndTodos writes each hiding trick as
// a tracked step (with a summary and a deviation) and as a todo item: the
// page's visible text holds every word of each.
func TestTheHTMLPageShowsEveryWordOfStepsAndTodos(t *testing.T) {
	for _, c := range hidetest.Cases {
		steps := []host.Event{
			{Type: plansteps.EventSteps, Data: mustJSON(t, plansteps.StepsPayload{Title: "T", Source: plansteps.SourceSteps,
				Steps: []plansteps.Step{{ID: 1, Description: c.Plan}}})},
			{Type: plansteps.EventCompleted, Data: mustJSON(t, plansteps.CompletedPayload{Summary: c.Plan,
				Deviations: []plansteps.Deviation{{StepID: 1, Description: c.Plan}}})},
		}
		list := mustJSON(t, todo.List{Todos: []todo.Item{{ID: "1", Content: c.Plan, Status: todo.StatusPending, Priority: todo.PriorityMedium}}})
		todos := []host.Event{{Type: host.TypeToolResult, Data: mustJSON(t, host.ToolResult{CallID: "t", Name: todo.WriteToolName, Output: string(list)})}}
		for name, events := range map[string][]host.Event{"steps": steps, "todo": todos} {
			t.Run(name+"/"+c.Name, func(t *testing.T) {
				got := page(events...)
				if m := hidetest.Missing(hidetest.PageText(got), c.Words); len(m) > 0 {
					t.Errorf("missing %q in the page's text:\n%s", m, hidetest.PageText(got))
				}
			})
		}
	}
}

// TestTheHTMLPageShowsEveryWordInChromium opens a page of every hiding
// trick in a browser: the text it shows holds every word.
func TestTheHTMLPageShowsEveryWordInChromium(t *testing.T) {
	chromium := findChromium(t)
	var events []host.Event
	for i, c := range hidetest.Cases {
		events = append(events, approvedPlanEvents(t, fmt.Sprint(i), c.Plan)...)
	}
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, []byte(page(events...)), 0o600); err != nil {
		t.Fatal(err)
	}
	browser := openInChromium(t, chromium, path)
	shown, err := chromedp.Run(browser, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatalf("chromium: innerText: %v", err)
	}
	for _, c := range hidetest.Cases {
		if m := hidetest.Missing(shown, c.Words); len(m) > 0 {
			t.Errorf("%s: Chromium does not show %q", c.Name, m)
		}
	}
}
