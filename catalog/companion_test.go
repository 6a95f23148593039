package catalog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/dshgo/planmode/catalog"
)

func TestLoadCompanionFindsTheSurface(t *testing.T) {
	tests := []struct {
		dir    string
		plugin string
		events []string
		tools  []string
		want   []string // in the Markdown
	}{
		{"../plansteps", "plan-steps",
			[]string{"plan/completed", "plan/step-completed", "plan/step-modified", "plan/steps"},
			[]string{"plan_complete", "plan_modify", "plan_status", "plan_step_complete"},
			[]string{"### Plugin `plan-steps` (package `plansteps`)", "| `max_steps` | integer |", "#### Section `plan:progress`", "type StepsPayload struct"}},
		{"../todo", "todo", nil, []string{"todo_read", "todo_write"},
			[]string{"### Plugin `todo` (package `todo`)", "| `max_items` | integer |", "#### Tool `todo_write`"}},
	}
	for _, tt := range tests {
		t.Run(tt.plugin, func(t *testing.T) {
			c, err := catalog.LoadCompanion(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			var events, tools []string
			for _, e := range c.Events {
				events = append(events, e.Name)
			}
			for _, x := range c.Tools {
				tools = append(tools, x.Name)
			}
			if c.Config.Plugin != tt.plugin || strings.Join(events, ",") != strings.Join(tt.events, ",") || strings.Join(tools, ",") != strings.Join(tt.tools, ",") {
				t.Fatalf("plugin %q events %v tools %v", c.Config.Plugin, events, tools)
			}
			md := string(catalog.CompanionsMarkdown([]catalog.Companion{c}))
			for _, w := range tt.want {
				if !strings.Contains(md, w) {
					t.Errorf("Markdown lacks %q", w)
				}
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
