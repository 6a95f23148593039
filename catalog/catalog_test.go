package catalog_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode/catalog"
)

const fixtureDir = "testdata/fixture"

// copyFixture copies the fixture package into a temporary directory and
// applies edits: each maps a file name to old/new pairs to replace, or to
// nil to delete the file.
func copyFixture(t *testing.T, edits map[string][]string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(fixtureDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		pairs, edited := edits[e.Name()]
		if edited && pairs == nil {
			continue
		}
		for i := 0; i+1 < len(pairs); i += 2 {
			if !bytes.Contains(b, []byte(pairs[i])) {
				t.Fatalf("%s does not contain %q", e.Name(), pairs[i])
			}
			b = bytes.Replace(b, []byte(pairs[i]), []byte(pairs[i+1]), 1)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// wantLoadError checks that Load failed with target and named every want.
func wantLoadError(t *testing.T, err, target error, want []string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("Load error = %v, want %v", err, target)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not name %q", err, w)
		}
	}
}

func TestLoadFixtureMatchesGolden(t *testing.T) {
	c, err := catalog.Load(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Markdown()
	checkGolden(t, "Markdown()", got, filepath.Join("testdata", "fixture.golden"))
}

func TestLoadExtractsTheSurface(t *testing.T) {
	c, err := catalog.Load(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, m := range c.Service.Methods {
		methods = append(methods, m.Name)
	}
	var types []string
	for _, ty := range c.Service.Types {
		types = append(types, ty.Name)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"package", c.Package, "planmode"},
		{"service type", c.Service.Name, "Controller"},
		{"methods (exported only, sorted)", strings.Join(methods, " "), "Controller.Get Controller.Set"},
		{"types the methods name", strings.Join(types, " "), "State SetResult Selection"},
		{"Get's doc comment, verbatim", c.Service.Methods[0].Doc,
			"// Get returns the logged state of agent's session and, only when one\n// exists, the pending selection."},
		{"Get's signature", c.Service.Methods[0].Code, "func (c *Controller) Get(agent host.Agent) State"},
		{"events", len(c.Events), 2},
		{"event", c.Events[0].Name, "plan/mode"},
		{"event constant", c.Events[0].Const, "EventPlanMode"},
		{"payload", c.Events[0].Payload.Name, "ModePayload"},
		{"cancel event", c.Events[1].Name, "plan/cancel"},
		{"cancel event constant", c.Events[1].Const, "EventPlanCancel"},
		{"cancel payload", c.Events[1].Payload.Name, "CancelPayload"},
		{"cancel payload field doc", strings.Contains(c.Events[1].Payload.Code, "// Cancelled is the selection withdrawn."), true},
		{"tool", c.Tool.Name, "exit_plan_mode"},
		{"input schema is indented JSON", strings.Contains(c.Tool.InputSchema, "\n  \"required\": [\n    \"plan\"\n  ]"), true},
		{"command", c.Command.Name, "plan"},
		{"hint", c.Command.Hint, "[off|message]"},
		{"command help", c.Command.Description, "Switch plan mode: /plan, /plan off, /plan <message>"},
		{"tool description from a concatenation", c.Tool.Description,
			`Present your plan for review; the result is {"approved":true} once the user approves.`},
		{"section name from a concatenation", c.Section.Name, "plan:policy"},
		{"section order from iota and another constant", c.Section.Order, int64(70)},
		{"config plugin key (build-ignored file skipped)", c.Config.Plugin, "plan-mode"},
		{"config keys", len(c.Config.Keys), 1},
		{"config key", c.Config.Keys[0].Key, "section"},
		{"config type", c.Config.Keys[0].Type, "string"},
		{"config rules", c.Config.Keys[0].Rules, "required,notblank"},
		{"config doc on one line", c.Config.Keys[0].Doc,
			"Section is the guidance text rendered while plan mode is active. It must be a non-empty string | used verbatim."},
	}
	for _, tt := range checks {
		if tt.got != tt.want {
			t.Errorf("%s = %#v, want %#v", tt.name, tt.got, tt.want)
		}
	}
}

func TestMarkdownIsDeterministic(t *testing.T) {
	a, err := catalog.Load(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := copyFixture(t, nil)
	b, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Markdown(), b.Markdown()) {
		t.Error("the same source in another directory rendered differently")
	}
	if bytes.Contains(b.Markdown(), []byte(dir)) {
		t.Errorf("the rendered catalog holds the package's path %s", dir)
	}
}

func TestLoadNamesEveryMissingDeclaration(t *testing.T) {
	tests := []struct {
		name  string
		edits map[string][]string
		want  []string
	}{
		{
			name:  "command file removed",
			edits: map[string][]string{"command_plan.go": nil},
			want:  []string{"string constant CommandName (the /plan command's name)", "string constant CommandHint"},
		},
		{
			name:  "tool file removed",
			edits: map[string][]string{"tool_exit.go": nil},
			want: []string{"JSON string constant ExitInputSchema or exitInputSchema (the exit tool's input JSON schema)",
				"JSON string constant ExitOutputSchema", "string constant ExitToolDescription", "string constant ExitToolName"},
		},
		{
			name:  "config type removed",
			edits: map[string][]string{"config.go": nil},
			want:  []string{"type Config (the plugin's configuration)"},
		},
		{
			name:  "controller renamed",
			edits: map[string][]string{"plugin.go": {"type Controller struct", "type Service struct"}},
			want:  []string{"type Controller (the ctx.planMode service)"},
		},
		{
			name:  "unexported constant does not count",
			edits: map[string][]string{"event.go": {"const EventPlanMode", "const eventPlanMode"}},
			want:  []string{"string constant EventPlanMode"},
		},
		{
			name: "cancel event removed",
			edits: map[string][]string{"event.go": {"const EventPlanCancel", "const eventPlanCancel",
				"type CancelPayload struct", "type cancelPayload struct"}},
			want: []string{"type CancelPayload (the payload of the plan/cancel event)", "string constant EventPlanCancel (the plan/cancel event type)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := catalog.Load(copyFixture(t, tt.edits))
			wantLoadError(t, err, catalog.ErrMissing, tt.want)
		})
	}
}

func TestLoadNamesUndocumentedNames(t *testing.T) {
	tests := []struct {
		name  string
		edits []string // old/new pairs in plugin.go
		want  []string
	}{
		{
			name: "a method and a field",
			edits: []string{
				"// Get returns the logged state of agent's session and, only when one\n// exists, the pending selection.\n", "",
				"\t// Active is the logged state.\n", "",
			},
			want: []string{"method Controller.Get", "field State.Active"},
		},
		{
			name:  "the controller type",
			edits: []string{"// Controller is the ctx.planMode service. It is safe for concurrent use.\n", ""},
			want:  []string{"type Controller"},
		},
		{
			name:  "a constant in a group without a group comment",
			edits: []string{"// The selections.\n", "", "SelectionPlan                  // plan mode", "SelectionPlan"},
			want:  []string{"const SelectionPlan"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := catalog.Load(copyFixture(t, map[string][]string{"plugin.go": tt.edits}))
			wantLoadError(t, err, catalog.ErrUndocumented, tt.want)
		})
	}
}

func TestLoadAcceptsAGroupDocumentedConstantByConstant(t *testing.T) {
	if _, err := catalog.Load(copyFixture(t, map[string][]string{"plugin.go": {"// The selections.\n", ""}})); err != nil {
		t.Errorf("Load = %v, want no error: every constant of the group has its own comment", err)
	}
}

func TestLoadResolvesConstants(t *testing.T) {
	const order = "\t// SectionOrder places the section among the others.\n\tSectionOrder = sectionBase + 10*iota\n"
	tests := []struct {
		name string
		give string // replaces the SectionOrder spec
		want int64
	}{
		{"shift and addition", "\tSectionOrder = 1<<5 + 18\n", 50},
		{"conversion and len", "\tSectionOrder = int(len(\"0123456789\")) * 5\n", 50},
		{"parentheses and integer division", "\tSectionOrder = (201 / 4) % 100\n", 50},
		{"typed constant", "\tSectionOrder int = 50\n", 50},
		{"unary minus", "\tSectionOrder = -(-50)\n", 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := catalog.Load(copyFixture(t, map[string][]string{"plugin.go": {order, "\t// SectionOrder doc.\n" + tt.give}}))
			if err != nil {
				t.Fatal(err)
			}
			if c.Section.Order != tt.want {
				t.Errorf("Section.Order = %d, want %d", c.Section.Order, tt.want)
			}
		})
	}
}

func TestLoadRejectsUnusableConstants(t *testing.T) {
	const order = "\tSectionOrder = sectionBase + 10*iota\n"
	tests := []struct {
		name string
		file string
		old  string
		give string
		want string
	}{
		{"a string where an integer is needed", "plugin.go", order, "\tSectionOrder = \"fifty\"\n",
			`const SectionOrder: is a String constant ("fifty"), want Int`},
		{"an undefined name of another package", "plugin.go", order, "\tSectionOrder = host.Order\n",
			"type errors: plugin.go:14:22: undefined: host.Order"},
		{"a cycle", "plugin.go", order, "\tSectionOrder = sectionBase + SectionOrder\n",
			"type errors: plugin.go:14:2: initialization cycle: SectionOrder refers to itself"},
		{"division by zero", "plugin.go", order, "\tSectionOrder = 1 / (sectionBase - 50)\n",
			"type errors: plugin.go:14:21: invalid operation: division by zero"},
		{"too large", "plugin.go", order, "\tSectionOrder = 1 << 100\n",
			"const SectionOrder: 1267650600228229401496703205376 does not fit in 64 bits"},
		{"a huge shift", "plugin.go", order, "\tSectionOrder = 1 << 100000\n",
			"type errors: plugin.go:14:22: invalid operation: invalid shift count 100000"},
		{"adding a string to a number", "plugin.go", order, "\tSectionOrder = policy + 1\n",
			"type errors: plugin.go:14:17: invalid operation: policy + 1 (mismatched types untyped string and untyped int)"},
		{"a type error outside the constants", "config.go", "return nil", "return 1",
			"type errors: config.go:14:43: cannot use 1 (constant of type int) as error value"},
		{"a schema that is not JSON", "tool_exit.go", "ExitOutputSchema = `{", "ExitOutputSchema = `{{",
			"const ExitOutputSchema: not a JSON document"},
		{"an empty schema", "tool_exit.go", "ExitOutputSchema = `{\"type\"", "ExitOutputSchema = ``\n\t_ = `{\"type\"",
			"const ExitOutputSchema: not a JSON document"},
		{"a config field without a yaml tag", "config.go", "`yaml:\"section\" validate:\"required,notblank\"`", "",
			"field Config.Section: no yaml tag naming its key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := catalog.Load(copyFixture(t, map[string][]string{tt.file: {tt.old, tt.give}}))
			if !errors.Is(err, catalog.ErrBadDeclaration) {
				t.Fatalf("Load error = %v, want %v", err, catalog.ErrBadDeclaration)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

// The texts and schemas the catalog shows by value may be unexported; the
// catalog then reads them under their lower-case names and does not name
// them. Names that host code uses must stay exported (see
// TestLoadNamesEveryMissingDeclaration).
func TestLoadReadsUnexportedTexts(t *testing.T) {
	c, err := catalog.Load(copyFixture(t, map[string][]string{
		"tool_exit.go": {"ExitToolDescription =", "exitToolDescription =",
			"ExitInputSchema =", "exitInputSchema =", "ExitOutputSchema =", "exitOutputSchema ="},
		"command_plan.go": {"CommandHint =", "commandHint =", "CommandDescription =", "commandDescription ="},
	}))
	if err != nil {
		t.Fatal(err)
	}
	want, err := catalog.Load(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Command.HintConst != "commandHint" || c.Tool.InputSchemaConst != "exitInputSchema" {
		t.Errorf("declared names %q, %q; want commandHint, exitInputSchema", c.Command.HintConst, c.Tool.InputSchemaConst)
	}
	if c.Tool.Description != want.Tool.Description || c.Tool.InputSchema != want.Tool.InputSchema ||
		c.Tool.OutputSchema != want.Tool.OutputSchema || c.Command.Hint != want.Command.Hint ||
		c.Command.Description != want.Command.Description {
		t.Errorf("read %+v %+v, want the values of %+v %+v", c.Tool, c.Command, want.Tool, want.Command)
	}
	md := string(c.Markdown())
	for _, name := range []string{"xitToolDescription", "xitInputSchema", "xitOutputSchema", "ommandHint", "ommandDescription"} {
		if strings.Contains(md, name) {
			t.Errorf("the catalog names %s, which host code cannot use", name)
		}
	}
}

func TestLoadFailsOnADirectoryWithoutGoFiles(t *testing.T) {
	_, err := catalog.Load(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no buildable Go source files") {
		t.Errorf("Load error = %v, want one saying there are no Go source files", err)
	}
}

func TestRequiredNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, it := range catalog.Required() {
		if seen[it.Name] {
			t.Errorf("%s is listed twice", it.Name)
		}
		seen[it.Name] = true
		if it.Role == "" {
			t.Errorf("%s has no role", it.Name)
		}
	}
}

// A doc comment may hold Markdown that must not leak out of its code block:
// a backtick fence, a heading, a marker line.
func TestMarkdownKeepsDocCommentsInsideTheirBlock(t *testing.T) {
	dir := copyFixture(t, map[string][]string{"plugin.go": {
		"// See [SetResult] for what can happen.\n",
		"// See [SetResult] for what can happen.\n/*\n```\n# Not a heading\n" + catalog.EndMarker + "\n*/\n",
	}})
	c, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	md := c.Markdown()
	for _, h := range catalog.Headings(md) {
		if h.Text == "Not a heading" {
			t.Errorf("a doc comment line became a heading on line %d", h.Line)
		}
	}
	page := []byte(catalog.BeginMarker + "\n" + catalog.EndMarker + "\n")
	once, err := catalog.Inject(page, md)
	if err != nil {
		t.Fatal(err)
	}
	twice, err := catalog.Inject(once, md)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(once, twice) {
		t.Error("injecting the catalog twice changed the page")
	}
}

func TestThePluginsCatalogListsItsWiring(t *testing.T) {
	c, err := catalog.Load("..")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range c.Wiring.Decls {
		names = append(names, d.Name)
	}
	// ModuleWith is listed while it is exported; moduleWith is not.
	want := []string{"Module", "ModuleWith", "New", "Params", "Config"}
	if !slices.Contains(names, "ModuleWith") {
		want = slices.DeleteFunc(want, func(n string) bool { return n == "ModuleWith" })
	}
	if !slices.Equal(names, want) {
		t.Fatalf("wiring = %v, want %v", names, want)
	}
	md := string(c.Markdown())
	for _, want := range []string{"### Installing the plugin", "the `Controller` service (`ctx.planMode` in Cordis terms)"} {
		if !strings.Contains(md, want) {
			t.Errorf("the catalog lacks %q", want)
		}
	}
}

// TestLoadListsPlanReopenWhenDeclared: the plugin's own package declares
// plan/reopen, so its catalog lists the event after plan/mode and
// plan/cancel; the fixture, which does not, lists only those two.
func TestLoadListsPlanReopenWhenDeclared(t *testing.T) {
	for _, tt := range []struct {
		dir  string
		want []string
	}{
		{"..", []string{"plan/mode", "plan/cancel", "plan/reopen"}},
		{fixtureDir, []string{"plan/mode", "plan/cancel"}},
	} {
		c, err := catalog.Load(tt.dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range c.Events {
			got = append(got, e.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: events %v, want %v", tt.dir, got, tt.want)
		}
	}
}
