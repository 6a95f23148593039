package planask

import (
	"errors"
	"fmt"

	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/internal/yamlcfg"
	"gopkg.in/yaml.v3"
)

// Config keys.
const (
	keyHeadless        = "headless"
	keyOutsidePlanMode = "outside_plan_mode"
	keyMaxPerTurn      = "max_questions_per_turn"
)

// Limits of MaxQuestionsPerTurn.
const (
	// DefaultMaxQuestionsPerTurn is the default of
	// [Config].MaxQuestionsPerTurn.
	DefaultMaxQuestionsPerTurn = 8
	// MaxQuestionsPerTurnLimit is the highest [Config].MaxQuestionsPerTurn.
	MaxQuestionsPerTurnLimit = 40
)

// Config is the plugin's configuration, the value under "plan-ask" in the
// deployment file. Every key is optional, so an empty entry enables the
// plugin with the defaults:
//
//	plugins:
//	  plan-ask:
//	    headless: decline          # or first-option
//	    outside_plan_mode: false
//	    max_questions_per_turn: 8
type Config struct {
	// Headless answers when no user is attached: "decline" (the default:
	// no answer, the model states its assumptions) or "first-option" (each
	// question takes its first option, marked as the policy's choice).
	Headless string `yaml:"headless"`
	// OutsidePlanMode lets the model ask outside plan mode too; by default
	// the tool answers only in plan mode.
	OutsidePlanMode bool `yaml:"outside_plan_mode"`
	// MaxQuestionsPerTurn is the most questions asked in one turn, over
	// all calls: a whole number from 1 to 40 (default 8).
	MaxQuestionsPerTurn int `yaml:"max_questions_per_turn"`
}

// DefaultConfig returns the configuration an empty entry gives.
func DefaultConfig() Config {
	return Config{Headless: HeadlessDecline, MaxQuestionsPerTurn: DefaultMaxQuestionsPerTurn}
}

// Validate checks a Config built in Go. The errors are
// [*deploy.FieldError]s without a position.
func (c Config) Validate() error {
	var errs []error
	if c.Headless != HeadlessDecline && c.Headless != HeadlessFirstOption {
		errs = append(errs, &deploy.FieldError{Key: keyHeadless, Problem: fmt.Sprintf(problemHeadless, c.Headless)})
	}
	if err := yamlcfg.CheckInt(keyMaxPerTurn, c.MaxQuestionsPerTurn, 1, MaxQuestionsPerTurnLimit); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: config: %w", PluginName, errors.Join(errs...))
	}
	return nil
}

// DecodeConfig decodes the plugin's YAML node strictly: a mapping or an
// empty entry; unknown keys, values of the wrong type and values out of
// range are [*deploy.FieldError]s at the offending node.
func DecodeConfig(node *yaml.Node) (Config, error) {
	m := yamlcfg.Decode(node, keyHeadless, keyOutsidePlanMode, keyMaxPerTurn)
	cfg := DefaultConfig()
	if h := m.OneOf(keyHeadless, HeadlessDecline, HeadlessFirstOption); h != "" {
		cfg.Headless = h
	}
	cfg.OutsidePlanMode = m.Bool(keyOutsidePlanMode, false)
	cfg.MaxQuestionsPerTurn = int(m.Int(keyMaxPerTurn, DefaultMaxQuestionsPerTurn, 1, MaxQuestionsPerTurnLimit))
	if errs := m.Errs(); len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return cfg, nil
}
