package plansteps_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companiontest"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"gopkg.in/yaml.v3"
)

// Each file in testdata/config is a deployment file, "---", then
// "ok max_steps=N" or the expected error.
func TestConfigFixtures(t *testing.T) {
	companiontest.ConfigFixtures(t, "testdata/config/*.yaml", func(give []byte) (string, error) {
		var got plansteps.Config
		p := plansteps.DeployPlugin()
		load := p.Load
		p.Load = func(n *yaml.Node) (fx.Option, error) {
			opt, err := load(n)
			if err == nil {
				got, _ = plansteps.DecodeConfig(n)
			}
			return opt, err
		}
		_, err := deploy.Parse("deploy.yaml", give, planmode.DeployPlugin(), p)
		return fmt.Sprintf("ok max_steps=%d", got.MaxSteps), err
	})
}

func TestDeploymentStartsBothPlugins(t *testing.T) {
	dep, err := deploy.Parse("deploy.yaml", []byte("plugins:\n  plan-mode:\n    section: s\n  plan-steps:\n"),
		planmode.DeployPlugin(), plansteps.DeployPlugin())
	if err != nil {
		t.Fatal(err)
	}
	var rt *refhost.Runtime
	app := fxtest.New(t,
		fx.Supply(fx.Annotate(store.NewMemory(), fx.As(new(host.Store)))),
		fx.Supply(fx.Annotate(scripted.NewModel(), fx.As(new(refhost.Model)))),
		refhost.Module,
		dep.Option(),
		fx.Populate(&rt),
	)
	app.RequireStart()
	defs := rt.Assemble(host.AssembleContext{}).Tools
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
		if d.Name == planmode.ExitToolName && !strings.Contains(string(d.InputSchema), `"steps"`) {
			t.Errorf("exit_plan_mode has no steps property: %s", d.InputSchema)
		}
	}
	for _, want := range []string{plansteps.StatusToolName, plansteps.StepCompleteToolName, plansteps.ModifyToolName, plansteps.CompleteToolName} {
		if !strings.Contains(strings.Join(names, ","), want) {
			t.Errorf("tool %s not registered: %v", want, names)
		}
	}
	app.RequireStop()
}

func TestConfigValidate(t *testing.T) {
	if err := (plansteps.Config{}).Validate(); err == nil {
		t.Fatal("a zero Config passed")
	}
}
