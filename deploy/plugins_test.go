package deploy_test

import (
	"errors"
	"strings"

	"github.com/dshgo/planmode/deploy"
	"go.uber.org/fx"
	"gopkg.in/yaml.v3"
)

// fakeConfig is what the fake plugin supplies to the fx graph.
type fakeConfig struct {
	X string
	N int
}

// fakePlugin requires a mapping with a non-blank string x and accepts an
// integer n. It reports its problems as joined FieldErrors, except for a bad
// n, where it returns the YAML library's own decode error.
func fakePlugin() deploy.Plugin {
	return deploy.Plugin{Name: "fake", Load: func(node *yaml.Node) (fx.Option, error) {
		if node.Kind != yaml.MappingNode {
			return nil, deploy.FieldErrorAt(node, "", "needs a mapping with the key x")
		}
		var cfg fakeConfig
		var errs []error
		sawX := false
		for i := 0; i+1 < len(node.Content); i += 2 {
			k, v := node.Content[i], node.Content[i+1]
			switch k.Value {
			case "x":
				sawX = true
				if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" || strings.TrimSpace(v.Value) == "" {
					errs = append(errs, deploy.FieldErrorAt(v, "x", "must be a non-empty string"))
					continue
				}
				cfg.X = v.Value
			case "n":
				if err := v.Decode(&cfg.N); err != nil {
					return nil, err
				}
			default:
				errs = append(errs, deploy.FieldErrorAt(k, k.Value, "unknown key (known keys: n, x)"))
			}
		}
		if !sawX {
			errs = append(errs, deploy.FieldErrorAt(node, "x", "missing; it must be a non-empty string"))
		}
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		return fx.Supply(cfg), nil
	}}
}

// plainPlugin accepts an empty entry or any mapping, supplies nothing (a nil
// option), and fails with a plain error when its mapping has the key fail.
func plainPlugin() deploy.Plugin {
	return deploy.Plugin{Name: "plain", Load: func(node *yaml.Node) (fx.Option, error) {
		for i := 0; i+1 < len(node.Content); i += 2 {
			if node.Content[i].Value == "fail" {
				return nil, errors.New("cannot start\n  " + node.Content[i+1].Value)
			}
		}
		return nil, nil
	}}
}

// offered is the plugin list every test passes.
func offered() []deploy.Plugin { return []deploy.Plugin{plainPlugin(), fakePlugin()} }
