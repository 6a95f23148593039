package deploy_test

import (
	"errors"
	"strings"
	"testing"

	"go.uber.org/fx"
	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode/deploy"
)

// companionPlugin needs the plain plugin enabled.
func companionPlugin() deploy.Plugin {
	p := plainPlugin()
	p.Name = "companion"
	p.Requires = []string{"plain"}
	return p
}

func TestRequiredPluginMissingFailsAtTheEntry(t *testing.T) {
	tests := []struct {
		name    string
		give    string
		wantErr string // empty: loads
	}{
		{"with the required plugin", "plugins:\n  plain:\n  companion:\n", ""},
		{"required plugin after it", "plugins:\n  companion:\n  plain: {}\n", ""},
		{"without the required plugin", "plugins:\n  fake:\n    x: y\n  companion:\n",
			`deploy.yaml:4:3: companion: needs the plugin "plain": enable it under plugins (add "plain:" with its configuration)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := deploy.Parse("deploy.yaml", []byte(tt.give), append(offered(), companionPlugin())...)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(strings.Join(d.Plugins, ","), "companion") {
					t.Fatalf("plugins %v lack companion", d.Plugins)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error %v, want %s", err, tt.wantErr)
			}
			var e *deploy.Error
			if !errors.As(err, &e) || e.Plugin != "companion" {
				t.Fatalf("error %v is not a *deploy.Error of companion", err)
			}
		})
	}
}

// companion requires plain and records the file name LoadFile got.
func companion(gotFile *string) deploy.Plugin {
	return deploy.Plugin{
		Name:     "companion",
		Requires: []string{"plain"},
		LoadFile: func(file string, _ *yaml.Node) (fx.Option, error) {
			*gotFile = file
			return nil, nil
		},
	}
}

func TestAPluginsRequirementsMustBeEnabled(t *testing.T) {
	var file string
	_, err := deploy.Parse("d.yaml", []byte("plugins:\n  companion:\n"), plainPlugin(), companion(&file))
	if err == nil || !strings.Contains(err.Error(), `d.yaml:2:3: companion: needs the plugin "plain"`) {
		t.Fatalf("error %v", err)
	}
	d, err := deploy.Parse("d.yaml", []byte("plugins:\n  companion:\n  plain:\n"), plainPlugin(), companion(&file))
	if err != nil {
		t.Fatal(err)
	}
	if file != "d.yaml" {
		t.Fatalf("LoadFile got %q", file)
	}
	if line, col, ok := d.Position("companion"); !ok || line != 2 || col != 3 {
		t.Fatalf("position %d:%d %v", line, col, ok)
	}
	if _, _, ok := d.Position("fake"); ok {
		t.Fatal("a plugin that is not enabled has a position")
	}
}

func TestAPluginNeedsALoadFunc(t *testing.T) {
	_, err := deploy.Parse("d.yaml", []byte("plugins: {}\n"), deploy.Plugin{Name: "none"})
	if !errors.Is(err, deploy.ErrBadPlugin) {
		t.Fatalf("error %v", err)
	}
}
