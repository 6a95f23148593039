package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/internal/fakeopenai"
	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
)

// TestACPModelPerMode runs "planhost acp" with a model per mode: the
// plan is made by the plan-mode model, the review's permission request
// offers "carry out the plan with" the default model as an allow_once
// option, and choosing it approves, records the model in the result and
// sends the next step to the default model.
func TestACPModelPerMode(t *testing.T) {
	dir := t.TempDir()
	planSrv := fakeopenai.New(fakeopenai.Options{APIKey: "pk", Strict: true},
		fakeopenai.Reply{Text: "A plan.", Calls: []fakeopenai.Call{planCall("call_1", "# Add Goodbye\n\n1. Add it.")}},
	)
	defer planSrv.Close()
	defSrv := fakeopenai.New(fakeopenai.Options{APIKey: "k", Strict: true}, fakeopenai.Reply{Text: "Hello done."})
	defer defSrv.Close()
	env := map[string]string{
		"XDG_STATE_HOME":  filepath.Join(dir, "state"),
		"OPENAI_BASE_URL": defSrv.BaseURL(), "OPENAI_MODEL": "doer", "OPENAI_API_KEY": "k",
		wiring.EnvPlanModel: "planner", wiring.EnvPlanBaseURL: planSrv.BaseURL(), wiring.EnvPlanAPIKey: "pk",
	}
	r := startACPReview(t, env, mkdir(t, dir, "ws"), "-model", "openai")
	// allow_once: it approves.
	r.answer(r.option(fmt.Sprintf(present.English.ACP.Option, fmt.Sprintf(present.English.Review.ApproveWith, "doer"), present.English.Review.ApproveWithDesc), "allow_once"))
	events := sessionEvents(t, filepath.Join(dir, "state", wiring.AppDir))
	res2 := exitResults(t, events)
	if len(res2) != 1 || res2[0].IsError || !strings.Contains(res2[0].Output, `"executeWith":"doer"`) {
		t.Errorf("exit results %+v", res2)
	}
	var models []string
	for _, e := range events {
		var st host.StepStart
		if e.Type == host.TypeStepStart && json.Unmarshal(e.Data, &st) == nil {
			models = append(models, st.Model)
		}
	}
	if strings.Join(models, ",") != "planner,doer" || len(defSrv.Requests()) != 1 {
		t.Errorf("step models = %q, default requests = %d; want planner,doer and 1", models, len(defSrv.Requests()))
	}
}
