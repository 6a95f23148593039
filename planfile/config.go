package planfile

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/dshgo/planmode/internal/yamlcfg"
	"gopkg.in/yaml.v3"
)

// Config keys.
const (
	keyDir      = "dir"
	keyMaxBytes = "max_bytes"
)

// Config is the plugin's configuration, the value under "plan-file" in the
// deployment file:
//
//	plugins:
//	  plan-mode:
//	    section: ...
//	  plan-file:
//	    dir: plans          # relative to the deployment file's directory
//	    max_bytes: 1048576  # optional, 1 KiB to 16 MiB, default 1 MiB
type Config struct {
	// Dir is the directory that holds one private directory per session.
	// Required; a relative path resolves against the deployment file's
	// directory. It should lie outside the workspace, so that the
	// workspace tools cannot reach the plan files.
	Dir string `yaml:"dir"`
	// MaxBytes is the largest plan accepted, in bytes: at least 1024 and
	// at most 16777216; 0 means [DefaultMaxBytes].
	MaxBytes int64 `yaml:"max_bytes"`
}

// Validate checks a Config built by hand: Dir absolute, MaxBytes 0 or in
// range.
func (c Config) Validate() error {
	var errs []error
	if !filepath.IsAbs(c.Dir) {
		errs = append(errs, fmt.Errorf("%s: %q %w", keyDir, c.Dir, errNotAbsolute))
	}
	if c.MaxBytes != 0 && (c.MaxBytes < MinMaxBytes || c.MaxBytes > MaxMaxBytes) {
		errs = append(errs, fmt.Errorf("%s: %d %w", keyMaxBytes, c.MaxBytes, errMaxBytesRange))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: config: %w", PluginName, errors.Join(errs...))
	}
	return nil
}

// maxBytes returns MaxBytes with its default.
func (c Config) maxBytes() int64 {
	if c.MaxBytes == 0 {
		return DefaultMaxBytes
	}
	return c.MaxBytes
}

// DecodeConfig decodes the plugin's YAML node strictly. file is the
// deployment file's name; a relative dir resolves against its directory.
// Unknown keys, a missing or blank dir, a max_bytes that is not a whole
// number or out of range are errors carrying the node's position.
func DecodeConfig(file string, node *yaml.Node) (Config, error) {
	m := yamlcfg.Decode(node, keyDir, keyMaxBytes)
	var cfg Config
	if m.Require(keyDir, whatDir) {
		cfg.Dir = m.String(keyDir)
	}
	cfg.MaxBytes = m.Int(keyMaxBytes, DefaultMaxBytes, MinMaxBytes, MaxMaxBytes)
	if errs := m.Errs(); len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	if !filepath.IsAbs(cfg.Dir) {
		base, err := filepath.Abs(filepath.Dir(file))
		if err != nil {
			return Config{}, fmt.Errorf("%s: %w", keyDir, err)
		}
		cfg.Dir = filepath.Join(base, cfg.Dir)
	}
	cfg.Dir = filepath.Clean(cfg.Dir)
	return cfg, nil
}
