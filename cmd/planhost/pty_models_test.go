package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/fakeopenai"
	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/host"
)

// TestPTYModelPerMode runs the terminal UI with a model per mode: the
// intro names both models and endpoints (never a key), the status line
// names the model of the last step, the review offers "Approve and execute
// with" the default model under the key m, and the approval's next step
// goes to that model.
func TestPTYModelPerMode(t *testing.T) {
	planSrv := fakeopenai.New(fakeopenai.Options{Flavour: fakeopenai.DeepSeek, APIKey: "sk-plan-secret", Strict: true},
		fakeopenai.Reply{Reasoning: "Think.", Text: "A plan.", Calls: []fakeopenai.Call{planCall("call_1", "# Hello\n\n1. Say hello.")}},
	)
	defer planSrv.Close()
	defSrv := fakeopenai.New(fakeopenai.Options{APIKey: "sk-default-secret", Strict: true}, fakeopenai.Reply{Text: "Hello done."})
	defer defSrv.Close()
	dir := newRunDir(t)
	cfg, err := filepath.Abs(filepath.Join("testdata", "run", "deploy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"OPENAI_BASE_URL=" + defSrv.BaseURL(), "OPENAI_MODEL=doer", "OPENAI_API_KEY=sk-default-secret",
		wiring.EnvPlanModel + "=planner", wiring.EnvPlanBaseURL + "=" + planSrv.BaseURL(), wiring.EnvPlanAPIKey + "=sk-plan-secret"}
	s := startPTY(t, 100, 30, env, "run", "-config", cfg, "-model", "openai", "-workspace", filepath.Join(dir, "ws"), "-sessions", filepath.Join(dir, "sessions"))
	s.waitScreen("shift+tab")
	screen := s.screen()
	checkHas(t, "intro", screen, "model doer at "+defSrv.BaseURL(), "plan-mode model planner at "+planSrv.BaseURL())
	s.send("/plan Say hello\r")
	s.waitScreen("[m] Approve and execute with doer")
	if screen := s.screen(); !strings.Contains(screen, "model planner ·") {
		t.Errorf("status line does not name the planner:\n%s", screen)
	}
	s.answer("m")
	s.waitScreen("Hello done.")
	s.waitIdle()
	if screen := s.screen(); !strings.Contains(screen, "model doer ·") {
		t.Errorf("status line does not name the default model:\n%s", screen)
	}
	s.quit()
	for _, key := range []string{"sk-plan-secret", "sk-default-secret"} {
		if strings.Contains(s.raw(), key) {
			t.Errorf("the key %s was shown", key)
		}
	}
	var models []string
	for _, e := range sessionEvents(t, dir) {
		if e.Type == host.TypeStepStart {
			var st host.StepStart
			jsonUnmarshal(t, e.Data, &st)
			models = append(models, st.Model)
		}
	}
	if strings.Join(models, ",") != "planner,doer" {
		t.Errorf("step models = %q; want planner, doer", models)
	}
}
