package todo_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companiontest"
	"github.com/dshgo/planmode/store"
	"github.com/dshgo/planmode/todo"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"gopkg.in/yaml.v3"
)

// Each file in testdata/config is a deployment file, a line "---", then
// "ok max_items=N" or the expected error.
func TestConfigFixtures(t *testing.T) {
	companiontest.ConfigFixtures(t, "testdata/config/*.yaml", func(give []byte) (string, error) {
		var got todo.Config
		capture := deploy.Plugin{Name: todo.PluginName, Load: func(n *yaml.Node) (fx.Option, error) {
			cfg, err := todo.DecodeConfig(n)
			got = cfg
			return nil, err
		}}
		_, err := deploy.Parse("deploy.yaml", give, capture)
		return fmt.Sprintf("ok max_items=%d", got.MaxItems), err
	})
}

func TestConfigValidate(t *testing.T) {
	if err := (todo.Config{}).Validate(); err == nil || !strings.Contains(err.Error(), "max_items") {
		t.Fatalf("zero Config: %v", err)
	}
	if err := todo.DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestDeployPluginInstallsTheModule(t *testing.T) {
	dep, err := deploy.Parse("deploy.yaml", []byte("plugins:\n  todo:\n"), todo.DeployPlugin())
	if err != nil {
		t.Fatal(err)
	}
	reg := newTools()
	app := fxtest.New(t,
		fx.Supply(fx.Annotate(reg, fx.As(new(host.Tools)))),
		fx.Supply(fx.Annotate(store.NewMemoryDocuments(), fx.As(new(host.Documents)))),
		dep.Option(),
	)
	app.RequireStart()
	for _, name := range []string{todo.ReadToolName, todo.WriteToolName} {
		reg.get(t, name)
	}
	app.RequireStop()
	if len(reg.byName) != 0 {
		t.Fatal("tools left after stop")
	}
}
