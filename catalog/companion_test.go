package catalog_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/catalog"
)

func TestLoadCompanionFollowsTheNamingConvention(t *testing.T) {
	tests := []struct {
		dir                     string
		plugin                  string
		events, tools, sections int
	}{
		{"../planfile", "plan-file", 2, 2, 1},
		{"../planentry", "plan-entry", 1, 1, 1},
		{"../planask", "plan-ask", 2, 1, 0},
		{"../planreview", "plan-review", 1, 0, 0},
		{"../plangate", "plan-gate", 0, 0, 0},
		{"../plansteps", "plan-steps", 4, 4, 1},
		{"../todo", "todo", 0, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.plugin, func(t *testing.T) {
			c, err := catalog.LoadCompanion(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if c.Config.Plugin != tt.plugin || len(c.Events) != tt.events || len(c.Tools) != tt.tools || len(c.Sections) != tt.sections {
				t.Fatalf("%s: %d events, %d tools, %d sections", c.Config.Plugin, len(c.Events), len(c.Tools), len(c.Sections))
			}
			md := string(c.Markdown())
			if !strings.HasPrefix(md, "### Companion `"+tt.plugin+"`") || !strings.HasSuffix(md, "\n\n") {
				t.Fatalf("markdown:\n%s", md)
			}
		})
	}
}

func TestLoadCompanionNeedsPluginNameAndConfig(t *testing.T) {
	_, err := catalog.LoadCompanion("../host")
	if !errors.Is(err, catalog.ErrMissing) || !strings.Contains(err.Error(), "PluginName") || !strings.Contains(err.Error(), "Config") {
		t.Fatalf("error %v", err)
	}
}

func TestLoadCompanionRefusesBrokenConventions(t *testing.T) {
	tests := []struct {
		name, src string
		want      error
	}{
		{"an event without a payload type", `
// PluginName names it.
const PluginName = "p"
// EventThing is an event.
const EventThing = "p/thing"
// Config is it.
type Config struct{}
`, catalog.ErrBadDeclaration},
		{"a tool without a description", `
// PluginName names it.
const PluginName = "p"
// XToolName is a tool.
const XToolName = "x"
// XInputSchema is its input.
const XInputSchema = "{}"
// Config is it.
type Config struct{}
`, catalog.ErrBadDeclaration},
		{"no config", `
// PluginName names it.
const PluginName = "p"
`, catalog.ErrMissing},
		{"an undocumented payload field", `
// PluginName names it.
const PluginName = "p"
// EventThing is an event.
const EventThing = "p/thing"
// ThingPayload is its payload.
type ThingPayload struct{ X int }
// Config is it.
type Config struct{}
`, catalog.ErrUndocumented},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte("// Package p is a fixture.\npackage p\n"+tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := catalog.LoadCompanion(dir); !errors.Is(err, tt.want) {
				t.Fatalf("error %v; want %v", err, tt.want)
			}
		})
	}
}
