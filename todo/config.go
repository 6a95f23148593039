package todo

import (
	"errors"
	"fmt"

	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/internal/yamlcfg"
	"gopkg.in/yaml.v3"
)

// Config is the plugin's configuration, the value under "todo" in the
// deployment file. Every key is optional, so an empty entry enables the
// plugin with the defaults:
//
//	plugins:
//	  todo:
//	    max_items: 50
type Config struct {
	// MaxItems is the most items the agent's list may hold, a whole number
	// from 1 to 200 (default 200).
	MaxItems int `yaml:"max_items"`
}

// keyMaxItems is the config key of Config.MaxItems.
const keyMaxItems = "max_items"

// DefaultConfig returns the configuration an empty entry gives.
func DefaultConfig() Config { return Config{MaxItems: MaxItems} }

// Validate checks a Config built in Go. The error is a [*deploy.FieldError]
// without a position.
func (c Config) Validate() error {
	if c.MaxItems < 1 || c.MaxItems > MaxItems {
		return fmt.Errorf("%s: config: %w", PluginName,
			&deploy.FieldError{Key: keyMaxItems, Problem: fmt.Sprintf(problemMaxItems, MaxItems, c.MaxItems)})
	}
	return nil
}

// DecodeConfig decodes the plugin's YAML node strictly: a mapping or an
// empty entry; unknown keys, values of the wrong type and values out of
// range are [*deploy.FieldError]s at the offending node.
func DecodeConfig(node *yaml.Node) (Config, error) {
	cfg := DefaultConfig()
	m := yamlcfg.Decode(node, keyMaxItems)
	cfg.MaxItems = int(m.Int(keyMaxItems, int64(cfg.MaxItems), 1, MaxItems))
	if errs := m.Errs(); len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return cfg, nil
}

// problemMaxItems is the problem of a bad Config.MaxItems built in Go.
const problemMaxItems = "must be a whole number from 1 to %d, got %d"
