package plansteps

import (
	"errors"
	"fmt"

	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/internal/yamlcfg"
	"gopkg.in/yaml.v3"
)

// Config is the plugin's configuration, the value under "plan-steps" in
// the deployment file. Every key is optional; an empty entry enables the
// plugin with the defaults. The plugin needs plan-mode enabled as well:
//
//	plugins:
//	  plan-mode:
//	    section: ...
//	  plan-steps:
//	    max_steps: 30
type Config struct {
	// MaxSteps is the most steps an approved plan may have, a whole number
	// from 1 to 100 (default 100).
	MaxSteps int `yaml:"max_steps"`
}

const keyMaxSteps = "max_steps"

// DefaultConfig returns the configuration an empty entry gives.
func DefaultConfig() Config { return Config{MaxSteps: MaxSteps} }

// Validate checks a Config built in Go.
func (c Config) Validate() error {
	if c.MaxSteps < 1 || c.MaxSteps > MaxSteps {
		return fmt.Errorf("%s: config: %w", PluginName,
			&deploy.FieldError{Key: keyMaxSteps, Problem: fmt.Sprintf(problemMaxSteps, MaxSteps, c.MaxSteps)})
	}
	return nil
}

// DecodeConfig decodes the plugin's YAML node strictly: a mapping or an
// empty entry; unknown keys, wrong types and out-of-range values are
// [*deploy.FieldError]s at the offending node.
func DecodeConfig(node *yaml.Node) (Config, error) {
	cfg := DefaultConfig()
	m := yamlcfg.Decode(node, keyMaxSteps)
	cfg.MaxSteps = int(m.Int(keyMaxSteps, int64(cfg.MaxSteps), 1, MaxSteps))
	if errs := m.Errs(); len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return cfg, nil
}
