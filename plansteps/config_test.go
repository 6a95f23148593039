package plansteps_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
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
	files, err := filepath.Glob("testdata/config/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			give, want, _ := bytes.Cut(raw, []byte("---\n"))
			wantText := strings.TrimSpace(string(want))
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
			_, err = deploy.Parse("deploy.yaml", give, planmode.DeployPlugin(), p)
			if strings.HasPrefix(wantText, "ok ") {
				if err != nil {
					t.Fatal(err)
				}
				if s := fmt.Sprintf("ok max_steps=%d", got.MaxSteps); s != wantText {
					t.Fatalf("got %s, want %s", s, wantText)
				}
				return
			}
			if err == nil || err.Error() != wantText {
				t.Fatalf("error:\n%v\nwant:\n%s", err, wantText)
			}
		})
	}
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
