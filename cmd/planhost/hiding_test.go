package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/e2etest"

	"github.com/chromedp/chromedp"

	"github.com/dshgo/planmode/cmd/planhost/internal/hidetest"
	"github.com/dshgo/planmode/cmd/planhost/internal/render"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/planmd"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/todo"
)

// TestTheConsoleReviewShowsEveryWord puts each hiding trick to the line
// console's review, piped and on a terminal: every word of the plan is
// printed (styles stripped), and nothing but colours reaches the terminal.
func TestTheConsoleReviewShowsEveryWord(t *testing.T) {
	for _, style := range []string{styleNoTTY, styleTerminal} {
		md, err := newMarkdown(style)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range hidetest.Cases {
			t.Run(style+"/"+c.Name, func(t *testing.T) {
				var out bytes.Buffer
				pr := newPrinter(&out, md, newPresenters(), true)
				q := host.Question{ID: e2etest.ReviewQuestionID, Header: "Plan review", Question: "Approve?", Detail: c.Plan,
					Options: []host.Option{{Label: e2etest.ReviewApprove, Role: host.RoleApprove}, {Label: e2etest.ReviewKeepPlanning, Role: host.RoleKeepPlanning}}}
				pr.question(q, []string{"1", "2", "3"})
				plain := render.Plain(out.String())
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

// TestTheHTMLPageShowsEveryWord writes each hiding trick as an approved
// plan to the inspect page: the page's visible text holds every word.
func TestTheHTMLPageShowsEveryWord(t *testing.T) {
	for _, c := range hidetest.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var page strings.Builder
			writeHTMLPage(&page, "s1", companionInspection{Plans: []approvedPlan{{Seq: 1, Title: planmd.Title(c.Plan), Plan: c.Plan}}})
			if m := hidetest.Missing(hidetest.PageText(page.String()), c.Words); len(m) > 0 {
				t.Errorf("missing %q in the page's text:\n%s", m, hidetest.PageText(page.String()))
			}
		})
	}
}

// TestTheHTMLPageShowsEveryWordOfStepsAndTodos writes each hiding trick as
// a tracked step (with a summary and a deviation) and as a todo item: the
// page's visible text holds every word of each.
func TestTheHTMLPageShowsEveryWordOfStepsAndTodos(t *testing.T) {
	for _, c := range hidetest.Cases {
		steps := &plansteps.Execution{Title: "T", Source: plansteps.SourceSteps, Steps: []plansteps.StepState{{Step: plansteps.Step{ID: 1, Description: c.Plan}}},
			Done: true, Summary: c.Plan, Deviations: []plansteps.Deviation{{StepID: 1, Description: c.Plan}}}
		for name, ci := range map[string]companionInspection{
			"steps": {Steps: []*plansteps.Execution{steps}},
			"todo":  {Todo: []todo.Item{{ID: "1", Content: c.Plan, Status: todo.StatusPending, Priority: todo.PriorityMedium}}},
		} {
			t.Run(name+"/"+c.Name, func(t *testing.T) {
				var page strings.Builder
				writeHTMLPage(&page, "s1", ci)
				if m := hidetest.Missing(hidetest.PageText(page.String()), c.Words); len(m) > 0 {
					t.Errorf("missing %q in the page's text:\n%s", m, hidetest.PageText(page.String()))
				}
			})
		}
	}
}

// TestTheHTMLPageShowsEveryWordInChromium opens a page of every hiding
// trick in a browser: the text it shows holds every word.
func TestTheHTMLPageShowsEveryWordInChromium(t *testing.T) {
	chromium := findChromium(t)
	var plans []approvedPlan
	for i, c := range hidetest.Cases {
		plans = append(plans, approvedPlan{Seq: uint64(i + 1), Title: c.Name, Plan: c.Plan})
	}
	var page strings.Builder
	writeHTMLPage(&page, "s1", companionInspection{Plans: plans})
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, []byte(page.String()), 0o600); err != nil {
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
