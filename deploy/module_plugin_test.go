package deploy_test

import (
	"errors"
	"strings"
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"
	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode/deploy"
)

// modConfig is the configuration of the ModulePlugin tests' plugin.
type modConfig struct{ Word string }

// decodeMod reads {word: string}; "bad" fails.
func decodeMod(node *yaml.Node) (modConfig, error) {
	var cfg modConfig
	for i := 0; i+1 < len(node.Content); i += 2 {
		if node.Content[i].Value == "word" {
			cfg.Word = node.Content[i+1].Value
		}
	}
	if cfg.Word == "bad" {
		return modConfig{}, errors.New("word must not be bad")
	}
	return cfg, nil
}

func TestModulePluginSuppliesTheDecodedConfigToTheModule(t *testing.T) {
	var got modConfig
	module := fx.Module("mod", fx.Invoke(func(c modConfig) { got = c }))
	p := deploy.ModulePlugin("mod", []string{"plain"}, decodeMod, module)
	d, err := deploy.Parse("mod.yaml", []byte("plugins:\n  plain:\n  mod:\n    word: hello\n"), plainPlugin(), p)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	fxtest.New(t, d.Option()).RequireStart().RequireStop()
	if got.Word != "hello" {
		t.Errorf("module got %+v, want Word hello", got)
	}
}

func TestModulePluginReportsDecodeErrorsAndRequires(t *testing.T) {
	p := deploy.ModulePlugin("mod", []string{"plain"}, decodeMod, fx.Options())
	tests := []struct {
		name    string
		give    string
		wantErr string
	}{
		{"decode error", "plugins:\n  plain:\n  mod:\n    word: bad\n", "word must not be bad"},
		{"required plugin missing", "plugins:\n  mod:\n    word: ok\n", "plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := deploy.Parse("mod.yaml", []byte(tt.give), plainPlugin(), p)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}
