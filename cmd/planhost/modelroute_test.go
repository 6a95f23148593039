package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/fakeopenai"
	"github.com/dshgo/planmode/cmd/planhost/internal/inspect"
	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
)

// planCall is an exit_plan_mode call of a fake reply.
func planCall(id, plan string) fakeopenai.Call {
	args, _ := json.Marshal(map[string]string{"plan": plan})
	return fakeopenai.Call{ID: id, Name: "exit_plan_mode", Arguments: string(args)}
}

// toolResults reads the outputs of the "tool/result" events of the
// session file named in out.
func toolResults(t *testing.T, out string) []string {
	t.Helper()
	var outputs []string
	for _, e := range sessionFileEvents(t, out) {
		var r host.ToolResult
		if e.Type == host.TypeToolResult && json.Unmarshal(e.Data, &r) == nil {
			outputs = append(outputs, r.Output)
		}
	}
	return outputs
}

// sessionFileEvents reads the events of the session file named in out.
func sessionFileEvents(t *testing.T, out string) []host.Event {
	t.Helper()
	return readEvents(t, strings.TrimPrefix(regexp.MustCompile(`(?m)^session file: .*$`).FindString(out), "session file: "))
}

// stepModels reads the models the "step/start" events of the session file
// named in out record.
func stepModels(t *testing.T, out string) []string {
	t.Helper()
	var models []string
	for _, e := range sessionFileEvents(t, out) {
		if e.Type != host.TypeStepStart {
			continue
		}
		var s host.StepStart
		if err := json.Unmarshal(e.Data, &s); err != nil {
			t.Fatal(err)
		}
		models = append(models, s.Model)
	}
	return models
}

// TestRunWithAModelPerMode plans on one endpoint and executes on another:
// each step goes to the model of the mode in force at that step (the
// approval switches within the turn, /plan back), every step records its
// model, the console says at each switch which model answers, and the
// plan endpoint's own key never reaches the default endpoint nor the
// other way round.
func TestRunWithAModelPerMode(t *testing.T) {
	planSrv := fakeopenai.New(fakeopenai.Options{APIKey: "plan-key", Strict: true},
		fakeopenai.Reply{Text: "A plan.", Calls: []fakeopenai.Call{planCall("call_1", "# Hello\n\n1. Say hello.")}},
		fakeopenai.Reply{Text: "Still fine."},
	)
	defer planSrv.Close()
	defSrv := fakeopenai.New(fakeopenai.Options{APIKey: "k", Strict: true}, fakeopenai.Reply{Text: "Hello done."})
	defer defSrv.Close()
	env := map[string]string{
		"OPENAI_BASE_URL": defSrv.BaseURL(), "OPENAI_MODEL": "doer", "OPENAI_API_KEY": "k",
		wiring.EnvPlanBaseURL: planSrv.BaseURL(), wiring.EnvPlanAPIKey: "plan-key",
	}
	dir := newRunDir(t)
	// The review's options are Approve, Approve and execute with doer,
	// Save plan and stop, Keep planning: numbered, as two begin with "A".
	out, _ := mustMainEnv(t, env, exitOK, "/plan Say hello\nm\n/plan Check again\n", openaiArgs(dir, filepath.Join("testdata", "run", "deploy.yaml"), "-plan-model", "planner")...)
	if got, want := stepModels(t, out), []string{"planner", "doer", "planner"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("step models = %q; want %q", got, want)
	}
	if n := len(planSrv.Requests()); n != 2 {
		t.Errorf("plan endpoint requests = %d; want 2", n)
	}
	if n := len(defSrv.Requests()); n != 1 {
		t.Errorf("default endpoint requests = %d; want 1", n)
	}
	for _, r := range planSrv.Requests() {
		if !strings.Contains(r.Raw, `"model":"planner"`) {
			t.Errorf("plan request names another model: %s", r.Raw)
		}
	}
	checkHas(t, "output", out, "── model planner ──\n", "── model doer ──\n", "assistant: Hello done.", "assistant: Still fine.")
	if !strings.Contains(out, "[m] Approve and execute with doer") {
		t.Errorf("the review does not offer the default model:\n%s", out)
	}
	if got := toolResults(t, out); len(got) != 1 || !strings.Contains(got[0], `"executeWith":"doer"`) || !strings.Contains(got[0], `"approved":true`) {
		t.Errorf("exit_plan_mode results = %q; want an approval recording the model", got)
	}
	// inspect lists each switch of model in its timeline.
	file := strings.TrimPrefix(regexp.MustCompile(`(?m)^session file: .*$`).FindString(out), "session file: ")
	out2, _ := mustMain(t, exitOK, "", "inspect", file)
	if got := regexp.MustCompile(`(?m)^#\d+ ── model .*$`).FindAllString(out2, -1); len(got) != 3 ||
		!strings.HasSuffix(got[0], " model planner ──") || !strings.HasSuffix(got[1], " model doer ──") || !strings.HasSuffix(got[2], " model planner ──") {
		t.Errorf("inspect model lines = %q; want planner, doer, planner:\n%s", got, out2)
	}
	if !regexp.MustCompile(`(?m)^#\d+ Plan approved, to carry out with doer\.$`).MatchString(out2) {
		t.Errorf("inspect does not show the model the approval chose:\n%s", out2)
	}
	// inspect -json says the same.
	out3, _ := mustMain(t, exitOK, "", "inspect", "-json", file)
	var ins inspect.Inspection
	if err := json.Unmarshal([]byte(out3), &ins); err != nil {
		t.Fatal(err)
	}
	var switches []string
	executeWith := false
	for _, e := range ins.Items {
		switch {
		case e.Kind == present.Rule && strings.Contains(e.Text, "model"):
			switches = append(switches, e.Text)
		case e.Kind == present.Note && e.Text == "Plan approved, to carry out with doer.":
			executeWith = true
		}
	}
	if got := strings.Join(switches, ","); got != "── model planner ──,── model doer ──,── model planner ──" || !executeWith {
		t.Errorf("inspect -json model items %q, execute with doer %v; want the three switches and doer:\n%s", got, executeWith, out3)
	}
	// The HTML page shows the model of each run of steps and marks each
	// change, and the model the approval chose.
	page := filepath.Join(t.TempDir(), "session.html")
	mustMain(t, exitOK, "", "inspect", "-html", page, file)
	b := readFile(t, page)
	code := func(m string) string { return `<code class="model">` + m + `</code>` }
	want := `<h2>Models</h2>
<ul class="models">
<li class="model-run">Turn 1, step 1 (plan mode): ` + code("planner") + `</li>
<li class="model-switch">model: ` + code("planner") + ` → ` + code("doer") + `</li>
<li class="model-run">Turn 1, step 2 (default mode): ` + code("doer") + `</li>
<li class="model-switch">model: ` + code("doer") + ` → ` + code("planner") + `</li>
<li class="model-run">Turn 2, step 1 (plan mode): ` + code("planner") + `</li>
</ul>
`
	if !strings.Contains(string(b), want) {
		t.Errorf("the page lacks the models:\n%s\nwant:\n%s", b, want)
	}
	if !strings.Contains(string(b), `<p class="execute-with">Approved to execute with `+code("doer")+`.</p>`) {
		t.Errorf("the page does not say which model the approval chose:\n%s", b)
	}
	if got := strings.Count(out, "── model "); got != 3 {
		t.Errorf("%d model lines; want one per switch (3):\n%s", got, out)
	}
}

// TestPlanModelUsageErrors checks the configurations -plan-model refuses.
func TestPlanModelUsageErrors(t *testing.T) {
	dir := newRunDir(t)
	script := writeScript(t, dir, "s.yaml", "steps:\n  - text: Hi.\n")
	noPlan := filepath.Join(dir, "noplan.yaml")
	if err := os.WriteFile(noPlan, []byte("plugins: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deploy := filepath.Join("testdata", "run", "deploy.yaml")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"scripted", []string{"-config", deploy, "-model", "scripted:" + script, "-plan-model", "planner"}, "-plan-model (or PLAN_OPENAI_MODEL): needs -model openai"},
		{"same name", []string{"-config", deploy, "-model", "openai", "-openai-model", "m", "-plan-model", "m"}, `-plan-model "m": the default mode's model has the same name`},
		{"bad plan URL", []string{"-config", deploy, "-model", "openai", "-openai-model", "m", "-plan-model", "p", "-plan-base-url", "ftp://x"}, "-plan-model: "},
		{"no plan mode", []string{"-config", noPlan, "-model", "openai", "-openai-model", "m", "-plan-model", "p"}, "-plan-model: the deployment does not enable plan-mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut := mustMain(t, exitUsage, "", append([]string{"run", "-workspace", filepath.Join(dir, "ws"), "-sessions", filepath.Join(dir, "sessions")}, tt.args...)...)
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr = %q; want %q", errOut, tt.want)
			}
		})
	}
}

// TestReasoningAcrossModels plans on a thinking model (DeepSeek's rules:
// its reasoning must come back with its tool calls) and executes on a
// strict endpoint that refuses reasoning_content: the step after the
// approval goes to the default model without the planner's reasoning, and
// the step after /plan goes back to the planner with it. Both directions
// run against endpoints that answer 400 when the rule is broken.
func TestReasoningAcrossModels(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream=%t", stream), func(t *testing.T) {
			planSrv := fakeopenai.New(fakeopenai.Options{Flavour: fakeopenai.DeepSeek, APIKey: "k", Strict: true},
				fakeopenai.Reply{Reasoning: "Think first.", Text: "A plan.", Calls: []fakeopenai.Call{planCall("call_1", "# Hello\n\n1. Say hello.")}},
				fakeopenai.Reply{Reasoning: "Nothing new.", Text: "Still fine."},
			)
			defer planSrv.Close()
			defSrv := fakeopenai.New(fakeopenai.Options{Flavour: fakeopenai.OpenAI, APIKey: "k", Strict: true}, fakeopenai.Reply{Text: "Hello done."})
			defer defSrv.Close()
			env := map[string]string{"OPENAI_BASE_URL": defSrv.BaseURL(), "OPENAI_MODEL": "doer", "OPENAI_API_KEY": "k", wiring.EnvPlanBaseURL: planSrv.BaseURL(), wiring.EnvPlanAPIKey: "k"}
			dir := newRunDir(t)
			out, _ := mustMainEnv(t, env, exitOK, "/plan Say hello\na\n/plan Check again\n",
				openaiArgs(dir, filepath.Join("testdata", "run", "deploy.yaml"), "-plan-model", "thinker", fmt.Sprintf("-stream=%t", stream))...)
			if strings.Contains(out, "ended: error") {
				t.Errorf("a turn failed:\n%s", out)
			}
			def := defSrv.Requests()
			if len(def) != 1 || strings.Contains(def[0].Raw, "reasoning_content") {
				t.Errorf("default requests = %d; the first carries the planner's reasoning: %v", len(def), def)
			}
			plan := planSrv.Requests()
			if len(plan) != 2 || !strings.Contains(plan[1].Raw, `"reasoning_content":"Think first."`) {
				t.Errorf("plan requests = %d; the second lacks the planner's reasoning: %v", len(plan), plan)
			}
			checkHas(t, "output", out, "assistant: Hello done.", "assistant: Still fine.")
		})
	}
}
