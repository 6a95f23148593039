package deploy

import (
	"go.uber.org/fx"
	"gopkg.in/yaml.v3"
)

// ModulePlugin returns the entry of a plugin whose configuration decode
// reads and whose fx module is module: Load decodes the node and installs
// fx.Supply(cfg) with module. requires is [Plugin.Requires]. A decode
// error is returned as is, with no option.
func ModulePlugin[C any](name string, requires []string, decode func(*yaml.Node) (C, error), module fx.Option) Plugin {
	return Plugin{
		Name:     name,
		Requires: requires,
		Load: func(node *yaml.Node) (fx.Option, error) {
			cfg, err := decode(node)
			if err != nil {
				return nil, err
			}
			return fx.Options(fx.Supply(cfg), module), nil
		},
	}
}
