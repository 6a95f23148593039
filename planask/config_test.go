package planask_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/internal/companiontest"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/planask"
	"go.uber.org/fx"
	"gopkg.in/yaml.v3"
)

// Each file in testdata/config is a deployment file, a line "---", then
// "ok headless=... outside_plan_mode=... max_questions_per_turn=..." or the
// expected error.
func TestConfigFixtures(t *testing.T) {
	companiontest.ConfigFixtures(t, "testdata/config/*.yaml", func(give []byte) (string, error) {
		var got planask.Config
		capture := deploy.Plugin{Name: planask.PluginName, Load: func(n *yaml.Node) (fx.Option, error) {
			cfg, err := planask.DecodeConfig(n)
			got = cfg
			return nil, err
		}}
		planMode := deploy.Plugin{Name: "plan-mode", Load: func(*yaml.Node) (fx.Option, error) { return nil, nil }}
		_, err := deploy.Parse("deploy.yaml", give, planMode, capture)
		return fmt.Sprintf("ok headless=%s outside_plan_mode=%v max_questions_per_turn=%d",
			got.Headless, got.OutsidePlanMode, got.MaxQuestionsPerTurn), err
	})
}

func TestDeployPluginInstallsTheModule(t *testing.T) {
	// e2etest.New brings plan-mode; the file names it for the requirement.
	planMode := deploy.Plugin{Name: "plan-mode", Load: func(*yaml.Node) (fx.Option, error) { return fx.Options(), nil }}
	dep, err := deploy.Parse("deploy.yaml", []byte("plugins:\n  plan-mode:\n  plan-ask:\n    headless: first-option\n"),
		planMode, planask.DeployPlugin())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := deploy.Parse("deploy.yaml", []byte("plugins:\n  plan-ask:\n"), planMode, planask.DeployPlugin()); err == nil ||
		!strings.Contains(err.Error(), "plan-mode") {
		t.Fatalf("without plan-mode: %v", err)
	}
	h := e2etest.New(t, dep.Option())
	h.Detach()
	a := h.Agent()
	h.EnterPlanMode(a)
	h.Model.Add(ask(storage), e2etest.Say("ok"))
	h.Prompt(a, "go")
	if got := result(t, a); got.Policy != planask.HeadlessFirstOption {
		t.Fatalf("result %+v", got)
	}
}
