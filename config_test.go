package planmode_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
)

// fixtureSeparator splits a config fixture into the input and what is
// expected: `ok "<Go-quoted section>"` or one or more `error <substring>`
// lines.
const fixtureSeparator = "=== want\n"

func TestDecodeConfigFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "config", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		name := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(file), ".yaml"), "_", " ")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			input, want, ok := strings.Cut(string(raw), fixtureSeparator)
			if !ok {
				t.Fatalf("%s: no %q line", file, strings.TrimSpace(fixtureSeparator))
			}
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(input), &doc); err != nil {
				t.Fatalf("%s: input: %v", file, err)
			}
			cfg, err := planmode.DecodeConfig(&doc)
			for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
				verb, arg, _ := strings.Cut(line, " ")
				switch verb {
				case "ok":
					section, qerr := strconv.Unquote(arg)
					if qerr != nil {
						t.Fatalf("%s: bad expectation %q: %v", file, arg, qerr)
					}
					if err != nil {
						t.Fatalf("DecodeConfig error = %v, want section %q", err, section)
					}
					if cfg.Section != section {
						t.Fatalf("section = %q, want %q", cfg.Section, section)
					}
				case "error":
					if err == nil {
						t.Fatalf("DecodeConfig = %+v, want an error containing %q", cfg, arg)
					}
					if !strings.Contains(err.Error(), arg) {
						t.Fatalf("error = %q\nwant it to contain %q", err, arg)
					}
					var fe *deploy.FieldError
					if !errors.As(err, &fe) {
						t.Fatalf("error %v is not a *deploy.FieldError", err)
					}
				default:
					t.Fatalf("%s: unknown expectation %q", file, line)
				}
			}
		})
	}
}

func TestDecodeConfigErrorNamesKeyAndPosition(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("\n  section: 42\n"), &doc); err != nil {
		t.Fatal(err)
	}
	_, err := planmode.DecodeConfig(&doc)
	var fe *deploy.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("error = %v, want a *deploy.FieldError", err)
	}
	want := deploy.FieldError{Line: 2, Column: 12, Key: "section", Problem: fe.Problem}
	if *fe != want || !strings.HasPrefix(fe.Problem, "must be a string, got a number") {
		t.Fatalf("field error = %+v, want %+v", *fe, want)
	}
}

func TestDecodeConfigRejectsTooLongSection(t *testing.T) {
	tests := []struct {
		name    string
		give    int
		wantErr bool
	}{
		{"the limit is accepted", planmode.MaxSectionLen, false},
		{"one character more is rejected", planmode.MaxSectionLen + 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := &yaml.Node{Kind: yaml.MappingNode, Line: 1, Column: 1, Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: "section", Line: 1, Column: 1},
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.Repeat("é", tt.give), Line: 1, Column: 10},
			}}
			_, err := planmode.DecodeConfig(node)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error: %v", err, tt.wantErr)
			}
			if tt.wantErr && !strings.Contains(err.Error(), "section: must be at most 65536 characters, got 65537") {
				t.Fatalf("error = %v", err)
			}
		})
	}
}

func TestDecodeConfigNilNodeIsMissingSection(t *testing.T) {
	_, err := planmode.DecodeConfig(nil)
	if err == nil || !strings.Contains(err.Error(), "section: is required") {
		t.Fatalf("error = %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		give planmode.Config
		want string // error substring; empty for valid
	}{
		{"text is valid", planmode.Config{Section: policy}, ""},
		{"zero config needs a section", planmode.Config{}, "plan-mode: invalid config: section: is required"},
		{"blank section is rejected", planmode.Config{Section: " \n\t"}, "section: must not be blank"},
		{"too long section is rejected", planmode.Config{Section: strings.Repeat("x", planmode.MaxSectionLen+1)}, "section: must be at most"},
		{"a section of the longest length is valid", planmode.Config{Section: strings.Repeat("é", planmode.MaxSectionLen)}, ""},
		{"a section of zero-width characters is blank", planmode.Config{Section: "\u200b\u200c\u200d\u2060\ufeff"}, "section: must not be blank"},
		{"a section of invisible letters and marks is blank", planmode.Config{Section: "\u3164 \u115f\u0301\ufe0f\u2800"}, "section: must not be blank"},
		{"a NUL is rejected", planmode.Config{Section: "plan\x00mode"}, "section: contains the control character U+0000 at character 5"},
		{"an escape sequence is rejected", planmode.Config{Section: "\x1b[2Jplan"}, "section: contains the control character U+001B at character 1"},
		{"tabs and line breaks are valid", planmode.Config{Section: "plan:\n\t- read\n"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.give.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, planmode.ErrBadConfig) {
				t.Fatalf("Validate = %v, want ErrBadConfig containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "Key:") || strings.Contains(err.Error(), "Error:Field") {
				t.Fatalf("Validate shows the validator's raw text: %v", err)
			}
		})
	}
}

func TestNewValidatesConfigAgain(t *testing.T) {
	h := newFakeHost()
	p := h.params(nil)
	p.Config = planmode.Config{Section: "   "}
	if _, err := planmode.New(p); !errors.Is(err, planmode.ErrBadConfig) {
		t.Fatalf("New error = %v, want ErrBadConfig", err)
	}
}

func TestNewNamesMissingRegistries(t *testing.T) {
	_, err := planmode.New(planmode.Params{Config: planmode.Config{Section: policy}})
	if !errors.Is(err, planmode.ErrMissingDependency) {
		t.Fatalf("New error = %v, want ErrMissingDependency", err)
	}
	for _, name := range []string{"Sections", "Tools", "PreStep", "Validators", "EventTypes"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}

func TestDeployPluginReportsFileLineAndKey(t *testing.T) {
	data := "plugins:\n  plan-mode:\n    section: 5\n"
	_, err := deploy.Parse("deploy.yaml", []byte(data), planmode.DeployPlugin())
	want := "deploy.yaml:3:14: plan-mode: section: must be a string, got a number"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Parse error = %v\nwant it to contain %q", err, want)
	}
}

func TestDeployPluginLoadsValidConfig(t *testing.T) {
	data := "plugins:\n  plan-mode:\n    section: |\n      Plan first.\n"
	d, err := deploy.Parse("deploy.yaml", []byte(data), planmode.DeployPlugin())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Plugins) != 1 || d.Plugins[0] != planmode.PluginName || d.Option() == nil {
		t.Fatalf("deployment = %+v", d)
	}
}

func FuzzDecodeConfig(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "config", "*.yaml"))
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		input, _, _ := strings.Cut(string(raw), fixtureSeparator)
		f.Add(input)
	}
	f.Add("section: &a x\nother: *a\n")
	f.Add("section: !!str\n")
	f.Fuzz(func(t *testing.T, input string) {
		var doc yaml.Node
		if yaml.Unmarshal([]byte(input), &doc) != nil {
			return
		}
		cfg, err := planmode.DecodeConfig(&doc)
		if err != nil {
			var fe *deploy.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *deploy.FieldError", err)
			}
			if cfg != (planmode.Config{}) {
				t.Fatalf("DecodeConfig returned %+v with an error", cfg)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("decoded config does not validate: %v", err)
		}
		if strings.TrimSpace(cfg.Section) == "" {
			t.Fatal("decoded a blank section")
		}
	})
}

func TestDecodeConfigErrorsAreBadConfig(t *testing.T) {
	for _, give := range []string{"section: 42\n", "sections: x\n", "~\n", "[a]\n"} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(give), &doc); err != nil {
			t.Fatal(err)
		}
		if _, err := planmode.DecodeConfig(&doc); !errors.Is(err, planmode.ErrBadConfig) {
			t.Errorf("DecodeConfig(%q) = %v, want ErrBadConfig", give, err)
		}
	}
	if _, err := planmode.DecodeConfig(nil); !errors.Is(err, planmode.ErrBadConfig) {
		t.Errorf("DecodeConfig(nil) = %v, want ErrBadConfig", err)
	}
}

func TestDuplicateSectionReadsTheSameThroughLoaderAndDecodeConfig(t *testing.T) {
	const file = "plugins:\n  plan-mode:\n    section: one\n    section: two\n"
	_, err := deploy.Parse("deploy.yaml", []byte(file), planmode.DeployPlugin())
	var viaLoader *deploy.Error
	if !errors.As(err, &viaLoader) {
		t.Fatalf("Parse = %v, want a *deploy.Error", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(file), &doc); err != nil {
		t.Fatal(err)
	}
	entry := doc.Content[0].Content[1].Content[1] // plugins → plan-mode
	_, err = planmode.DecodeConfig(entry)
	var viaDecode *deploy.FieldError
	if !errors.As(err, &viaDecode) {
		t.Fatalf("DecodeConfig = %v, want a *deploy.FieldError", err)
	}
	got := deploy.Error{File: "deploy.yaml", Line: viaDecode.Line, Column: viaDecode.Column, Plugin: planmode.PluginName, Key: viaDecode.Key, Problem: viaDecode.Problem}
	if got.Error() != viaLoader.Error() {
		t.Fatalf("DecodeConfig reads %q\nthe loader reads %q", got.Error(), viaLoader.Error())
	}
}
