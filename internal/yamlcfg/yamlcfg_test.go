package yamlcfg_test

import (
	"errors"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/internal/yamlcfg"
)

func decode(t *testing.T, src string, keys ...string) *yamlcfg.Mapping {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatal(err)
	}
	return yamlcfg.Decode(&n, keys...)
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		src  string
		read func(m *yamlcfg.Mapping)
		want string // joined problems; "" for none
	}{
		{"a string", "s: x", func(m *yamlcfg.Mapping) { m.String("s") }, ""},
		{"a blank string", "s: ' '", func(m *yamlcfg.Mapping) { m.String("s") }, "1:4: s: must not be blank"},
		{"a number for a string", "s: 1", func(m *yamlcfg.Mapping) { m.String("s") }, "s: must be a string, got"},
		{"an int in range", "n: 5", func(m *yamlcfg.Mapping) { m.Int("n", 0, 1, 9) }, ""},
		{"an int out of range", "n: 50", func(m *yamlcfg.Mapping) { m.Int("n", 0, 1, 9) }, "must be between 1 and 9, got 50"},
		{"a float for an int", "n: 1.5", func(m *yamlcfg.Mapping) { m.Int("n", 0, 1, 9) }, "must be a whole number"},
		{"a list", "l: [a, b]", func(m *yamlcfg.Mapping) { m.Strings("l", "a", "b") }, ""},
		{"a list item not allowed", "l: [a, c]", func(m *yamlcfg.Mapping) { m.Strings("l", "a", "b") }, `l[1]: must be one of a, b, got "c"`},
		{"a repeated item", "l: [a, a]", func(m *yamlcfg.Mapping) { m.Strings("l") }, `lists "a" twice`},
		{"an unknown key", "x: 1", func(*yamlcfg.Mapping) {}, "x: unknown key (the keys are s, n, l)"},
		{"a duplicate key", "s: a\ns: b", func(*yamlcfg.Mapping) {}, "2:1: s: duplicate key (first at line 1, column 1)"},
		{"a missing required key", "n: 1", func(m *yamlcfg.Mapping) { m.Require("s", "the s") }, "s: is required: the s"},
		{"not a mapping", "[1]", func(*yamlcfg.Mapping) {}, "must be a mapping"},
		{"null is empty", "~", func(*yamlcfg.Mapping) {}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := decode(t, tt.src, "s", "n", "l")
			tt.read(m)
			err := errors.Join(m.Errs()...)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("problems %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("problems %v; want %q", err, tt.want)
			}
		})
	}
}

func TestAPluginWithoutKeysTakesNone(t *testing.T) {
	if err := errors.Join(decode(t, "a: 1").Errs()...); err == nil || !strings.Contains(err.Error(), "takes no configuration") {
		t.Fatalf("problems %v", err)
	}
	if errs := decode(t, "{}").Errs(); len(errs) != 0 {
		t.Fatalf("problems %v", errs)
	}
}

func TestIntReadsEveryIntegerFormAndKeepsTheDefault(t *testing.T) {
	tests := []struct {
		name, src string
		want      int64
	}{
		{"missing key keeps the default", "s: x", 5},
		{"empty entry keeps the default", "", 5},
		{"hex and underscores", "n: 0x0_a", 10},
		{"underscores", "n: 1_0", 10},
		{"out of range keeps the default", "n: 11", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decode(t, tt.src, "s", "n").Int("n", 5, 1, 10); got != tt.want {
				t.Fatalf("Int = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestKeysMustBeStrings(t *testing.T) {
	if err := errors.Join(decode(t, "1: 2", "n").Errs()...); err == nil || !strings.Contains(err.Error(), "1:1: keys must be strings, got a number") {
		t.Fatalf("problems %v", err)
	}
}

func TestDecodeIntReadsTheOneKeyOrKeepsTheDefault(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    int
		wantErr string // "" for none
	}{
		{"an empty entry", "", 7, ""},
		{"a value in range", "n: 3", 3, ""},
		{"a value out of range", "n: 11", 0, "1:4: n: must be between 1 and 10, got 11"},
		{"an unknown key", "m: 3", 0, "m: unknown key (the only key is n)"},
		{"a string", "n: x", 0, "n: must be a whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var node yaml.Node
			if err := yaml.Unmarshal([]byte(tt.src), &node); err != nil {
				t.Fatal(err)
			}
			got, err := yamlcfg.DecodeInt(&node, "n", 7, 1, 10)
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Errorf("DecodeInt = %d, %v; want %d, nil", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("DecodeInt error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCheckIntNamesTheKeyAndTheRange(t *testing.T) {
	tests := []struct {
		name string
		give int
		want string // "" for none
	}{
		{"the low end", 1, ""},
		{"the high end", 10, ""},
		{"zero", 0, "n: must be a whole number from 1 to 10, got 0"},
		{"above", 11, "n: must be a whole number from 1 to 10, got 11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := yamlcfg.CheckInt("n", tt.give, 1, 10)
			if tt.want == "" {
				if err != nil {
					t.Errorf("CheckInt(%d) = %v, want nil", tt.give, err)
				}
				return
			}
			var fe *deploy.FieldError
			if !errors.As(err, &fe) || err.Error() != tt.want {
				t.Errorf("CheckInt(%d) = %v, want *deploy.FieldError %q", tt.give, err, tt.want)
			}
		})
	}
}
