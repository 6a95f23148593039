package planmode

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/internal/yamlcfg"
	"github.com/go-playground/validator/v10"
	"gopkg.in/yaml.v3"
)

// maxSectionLen is the longest section text accepted, in characters.
const maxSectionLen = 64 << 10

// keySection is the only config key.
const keySection = "section"

// Config is the plugin's configuration, the value under "plan-mode" in the
// deployment file:
//
//	plugins:
//	  plan-mode:
//	    section: |
//	      You are in plan mode. Explore read-only, then present a plan with exit_plan_mode.
type Config struct {
	// Section is the guidance shown to the model while plan mode is active,
	// as the plan:policy section of the system prompt (at order 50). It is
	// required and must be a YAML string with at least one visible
	// character (white space, zero-width and other invisible characters
	// alone are blank), at most 65536 characters, and no control character
	// other than tab and line break, whether written as is or as an escape
	// such as "\0". It is used exactly as written, with no templating. Use a
	// block scalar (section: |) for several lines; quote text that YAML
	// would otherwise read as a number, a boolean or null.
	Section string `yaml:"section" validate:"required,visible,printable,sectionlen"`
}

// Validate checks a Config built by hand as the deployment loader does. The
// error wraps [ErrBadConfig] and a [*deploy.FieldError] per problem.
func (c Config) Validate() error {
	problems := c.problems(false)
	if len(problems) == 0 {
		return nil
	}
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = &deploy.FieldError{Key: p.key, Problem: p.text}
	}
	return fmt.Errorf("%s: %w: %w", PluginName, ErrBadConfig, errors.Join(errs...))
}

// decodeConfig decodes the node under the plugin's name strictly and
// validates it; each problem is a positioned [*deploy.FieldError], and the
// error matches [ErrBadConfig]. Nothing is defaulted.
func decodeConfig(node *yaml.Node) (Config, error) {
	m := yamlcfg.Decode(node, keySection)
	var cfg Config
	if m.Require(keySection, problemRequiredWhat) {
		switch v := m.Node(keySection); {
		case v.Kind == yaml.ScalarNode && v.ShortTag() != "!!str":
			// Text that YAML read as another type.
			m.FailAt(v, keySection, fmt.Sprintf(problemNotStringHint, deploy.Describe(v)))
		case v.Kind != yaml.ScalarNode:
			m.FailAt(v, keySection, fmt.Sprintf(problemNotString, deploy.Describe(v)))
		default:
			cfg.Section = v.Value
			for _, p := range cfg.problems(true) {
				m.FailAt(v, p.key, p.text)
			}
		}
	}
	if errs := m.Errs(); len(errs) > 0 {
		return Config{}, &configError{errs: errs}
	}
	return cfg, nil
}

// configError is decodeConfig's error: its problems, and [ErrBadConfig].
type configError struct{ errs []error }

func (e *configError) Error() string        { return errors.Join(e.errs...).Error() }
func (e *configError) Unwrap() []error      { return e.errs }
func (e *configError) Is(target error) bool { return target == ErrBadConfig }

// problem is one failed field rule, in our words.
type problem struct {
	key, text string
}

// configValidator builds the validator of the field rules once.
var configValidator = sync.OnceValues(func() (*validator.Validate, error) {
	v := validator.New(validator.WithRequiredStructEnabled())
	rules := map[string]func(string) bool{
		"visible":    func(s string) bool { return strings.IndexFunc(s, isVisible) >= 0 },
		"printable":  func(s string) bool { _, _, bad := controlChar(s); return !bad },
		"sectionlen": func(s string) bool { return utf8.RuneCountInString(s) <= maxSectionLen },
	}
	for tag, ok := range rules {
		if err := v.RegisterValidation(tag, func(fl validator.FieldLevel) bool { return ok(fl.Field().String()) }); err != nil {
			return nil, err
		}
	}
	return v, nil
})

// isVisible reports whether r shows as something: not white space, a
// control or format character, a combining mark on its own, or a blank
// letter (the Hangul fillers, the braille blank).
func isVisible(r rune) bool {
	switch {
	case unicode.IsSpace(r), unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me):
		return false
	case r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0, r == 0x2800:
		return false
	}
	return r != utf8.RuneError
}

// controlChar finds the first control character other than tab and line
// break in s (YAML escapes can spell any); pos counts characters from 1.
func controlChar(s string) (r rune, pos int, found bool) {
	pos = 0
	for _, c := range s {
		pos++
		if c != '\t' && c != '\n' && unicode.Is(unicode.Cc, c) {
			return c, pos, true
		}
	}
	return 0, 0, false
}

// problems runs the field rules. present says the key was given, so an
// empty value reads as blank rather than missing.
func (c Config) problems(present bool) []problem {
	v, err := configValidator()
	if err == nil {
		err = v.Struct(c)
	}
	if err == nil {
		return nil
	}
	var fields validator.ValidationErrors
	if !errors.As(err, &fields) {
		return []problem{{key: keySection, text: problemInvalidText}}
	}
	out := make([]problem, 0, len(fields))
	for _, f := range fields {
		out = append(out, problem{key: keySection, text: describeRule(f.Tag(), c.Section, present)})
	}
	return out
}

// describeRule turns a failed validator tag into our message.
func describeRule(tag, value string, present bool) string {
	switch tag {
	case "required":
		if present {
			return problemBlank
		}
		return problemRequired
	case "visible":
		return problemBlank
	case "printable":
		r, pos, _ := controlChar(value)
		return fmt.Sprintf(problemControl, r, pos)
	case "sectionlen":
		return fmt.Sprintf(problemTooLong, maxSectionLen, utf8.RuneCountInString(value))
	default:
		return problemInvalidText
	}
}
