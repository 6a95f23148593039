package todo_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
	"github.com/dshgo/planmode/todo"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"gopkg.in/yaml.v3"
)

// Each file in testdata/config is a deployment file, a line "---", then
// "ok max_items=N" or the expected error.
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
			give, want, ok := bytes.Cut(raw, []byte("---\n"))
			if !ok {
				t.Fatal("no --- separator")
			}
			wantText := strings.TrimSpace(string(want))
			var got todo.Config
			capture := deploy.Plugin{Name: todo.PluginName, Load: func(n *yaml.Node) (fx.Option, error) {
				cfg, err := todo.DecodeConfig(n)
				got = cfg
				return nil, err
			}}
			_, err = deploy.Parse("deploy.yaml", give, capture)
			if strings.HasPrefix(wantText, "ok ") {
				if err != nil {
					t.Fatal(err)
				}
				if s := fmt.Sprintf("ok max_items=%d", got.MaxItems); s != wantText {
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
