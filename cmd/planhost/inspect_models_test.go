package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/inspect"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
)

// modelSession is a log of two turns whose steps name their models: plan
// mode's model (a name with markup and a bidi control) plans, the default
// model executes from step 3 on.
func modelSession(t *testing.T) []host.Event {
	t.Helper()
	planner := "<img src=x>\u202eplanner"
	var events []host.Event
	add := func(typ string, v any) {
		events = append(events, host.Event{Seq: uint64(len(events) + 1), Type: typ, Data: mustJSON(t, v)})
	}
	add(planmode.EventPlanMode, planmode.ModePayload{Active: true})
	add(host.TypeStepStart, host.StepStart{Turn: 1, Step: 1, Attempt: 1, Model: planner})
	add(host.TypeStepStart, host.StepStart{Turn: 1, Step: 2, Attempt: 1, Model: planner})
	add(host.TypeStepStart, host.StepStart{Turn: 1, Step: 2, Attempt: 2, Model: planner})
	add(planmode.EventPlanMode, planmode.ModePayload{Active: false})
	add(host.TypeStepStart, host.StepStart{Turn: 1, Step: 3, Attempt: 1, Model: "doer"})
	add(host.TypeStepStart, host.StepStart{Turn: 2, Step: 1, Attempt: 1, Model: "doer"})
	add(host.TypeStepStart, host.StepStart{Turn: 2, Step: 2, Attempt: 1})
	return events
}

// TestTheHTMLPageShowsTheModels: the page lists the runs of steps by
// model and mode, marks each change of model, and escapes the names;
// a log whose steps name no model has no such list.
func TestTheHTMLPageShowsTheModels(t *testing.T) {
	got := page(modelSession(t)...)
	planner := `<code class="model">&lt;img src=x&gt;\u202eplanner</code>`
	doer := `<code class="model">doer</code>`
	want := `<h2>Models</h2>
<ul class="models">
<li class="model-run">Turn 1, steps 1–2 (plan mode): ` + planner + `</li>
<li class="model-switch">model: ` + planner + ` → ` + doer + `</li>
<li class="model-run">Turn 1, step 3 (default mode): ` + doer + `</li>
<li class="model-run">Turn 2, step 1 (default mode): ` + doer + `</li>
</ul>
`
	if !strings.Contains(got, want) {
		t.Fatalf("page:\n%s\nwant the models:\n%s", got, want)
	}
	if strings.Contains(got, "<img") || strings.Contains(got, "\u202e") {
		t.Fatal("a model's name reached the page unescaped")
	}

	plain := page(host.Event{Type: host.TypeStepStart, Data: mustJSON(t, host.StepStart{Turn: 1, Step: 1, Attempt: 1})})
	if strings.Contains(plain, "Models") {
		t.Fatalf("a page without named models lists models:\n%s", plain)
	}

	t.Run("Chromium shows the change of model as text", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "models.html")
		if err := os.WriteFile(file, []byte(got), 0o600); err != nil {
			t.Fatal(err)
		}
		browser := openInChromium(t, findChromium(t), file)
		shown, err := chromedp.Run(browser, chromedp.Evaluate[string](`document.querySelector(".model-switch").innerText`))
		if err != nil || shown != `model: <img src=x>\u202eplanner → doer` {
			t.Errorf("the change of model reads %q (%v)", shown, err)
		}
		imgs, err := chromedp.Run(browser, chromedp.Evaluate[int](`document.querySelectorAll("img").length`))
		if err != nil || imgs != 0 {
			t.Errorf("%d images on the page (%v)", imgs, err)
		}
	})
}

// TestInspectShowsTheModelSwitches: inspect and its JSON mark each change
// of model, with the name escaped in the text.
func TestInspectShowsTheModelSwitches(t *testing.T) {
	ins := inspect.Inspect("s1", host.LogOf(modelSession(t)), present.English)
	var got []string
	for _, it := range ins.Items {
		if it.Kind == present.Rule && strings.Contains(it.Text, "model") {
			got = append(got, it.Text)
		}
	}
	if want := "── model <img src=x>\u202eplanner ──,── model doer ──"; strings.Join(got, ",") != want {
		t.Fatalf("model items %q; want %q", got, want)
	}
	var out strings.Builder
	inspect.WriteText(&out, ins, present.English)
	if !strings.Contains(out.String(), `#6 ── model doer ──`+"\n") || !strings.Contains(out.String(), `#2 ── model <img src=x>\u202eplanner ──`) {
		t.Fatalf("inspect:\n%s", out.String())
	}
}

// TestInspectShowsAPlanPresentedFromTheFile: a plan presented without a
// "plan" argument (plan-file) is read from its result's "plan": inspect's
// review line and the page carry its title and text.
func TestInspectShowsAPlanPresentedFromTheFile(t *testing.T) {
	plan := "# From the file\n\n1. Write it."
	events := host.LogOf([]host.Event{
		{Seq: 1, Type: host.TypeToolCall, Data: mustJSON(t, host.ToolCall{ID: "c1", Name: planmode.ExitToolName, Input: mustJSON(t, map[string]string{})})},
		{Seq: 2, Type: host.TypeToolResult, Data: mustJSON(t, host.ToolResult{CallID: "c1", Name: planmode.ExitToolName, Outcome: string(planmode.ExitApproved),
			Output: string(mustJSON(t, map[string]any{"approved": true, "edited": false, "plan": plan, "planFile": "/p/plan.md"}))})},
	})
	var out strings.Builder
	inspect.WriteText(&out, inspect.Inspect("s1", events, present.English), present.English)
	if !strings.Contains(out.String(), "#2 ▍Plan: From the file") || !strings.Contains(out.String(), "#2 Plan approved.") {
		t.Errorf("inspect:\n%s", out.String())
	}
	got := inspect.Page("s1", events, present.English)
	checkHas(t, "the page", got, "<title>From the file</title>", "<h1>From the file</h1>", "Write it.")
}
