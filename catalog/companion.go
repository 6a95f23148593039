package catalog

import (
	"fmt"
	"go/constant"
	"go/doc"
	"go/token"
	"regexp"
	"slices"
	"strings"
)

// Companion is the surface of a companion plugin package, found by naming
// convention (see [LoadCompanion]).
type Companion struct {
	// Package is the package's name.
	Package string
	// Events are the events the plugin logs, sorted by constant name.
	Events []Event
	// Tools are the plugin's tools, sorted by constant name.
	Tools []CompanionTool
	// Section is the plugin's prompt section, nil when it has none.
	Section *Section
	// Config is the plugin's configuration.
	Config Config
}

// CompanionTool is one tool of a companion plugin.
type CompanionTool struct {
	// Name is the tool's name, from the constant Const.
	Name string
	// Const is the constant that names the tool: <X>ToolName.
	Const string
	// Description is what the model reads, from <X>ToolDescription.
	Description string
	// InputSchema is the indented JSON schema from <X>InputSchema, empty
	// when the package declares none.
	InputSchema string
}

// eventValue is what an event type looks like: "noun/verb".
var eventValue = regexp.MustCompile(`^[a-z][a-z-]*/[a-z][a-z-]*$`)

// LoadCompanion reads the companion plugin package in dir and extracts its
// surface by convention: the constant PluginName and the type Config
// (required); every string constant Event<X> whose value is an event type
// and whose payload type <X>Payload the package declares; every string
// constant <X>ToolName with its <X>ToolDescription (required for each tool)
// and, when declared, <X>InputSchema; and SectionName with SectionOrder,
// when both are declared. Problems are reported as by [Load].
func LoadCompanion(dir string) (Companion, error) {
	fset := token.NewFileSet()
	files, pkgName, err := parseDir(fset, dir)
	if err != nil {
		return Companion{}, fmt.Errorf("catalog: %w", err)
	}
	l := loader{fset: fset, consts: indexConsts(files), where: fmt.Sprintf("package %s (%s)", pkgName, dir)}
	p, err := doc.NewFromFiles(fset, files, pkgName, doc.PreserveAST)
	if err != nil {
		return Companion{}, fmt.Errorf("catalog: %s: %w", l.where, err)
	}
	l.pkg = p
	var missing []string
	if !l.declared(namePlugin) {
		missing = append(missing, "const "+namePlugin+" (the plugin's name, also its config key)")
	}
	if l.typ(nameConfig) == nil {
		missing = append(missing, "type "+nameConfig+" (the plugin's configuration)")
	}
	if len(missing) > 0 {
		return Companion{}, fmt.Errorf("catalog: %s: %w: %s", l.where, ErrMissing, strings.Join(missing, ", "))
	}
	c := Companion{Package: pkgName, Config: l.config()}
	names := make([]string, 0, len(l.consts))
	for name := range l.consts {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if x, ok := strings.CutPrefix(name, "Event"); ok && x != "" {
			v, err := l.consts.value(name)
			if err != nil || v.Kind() != constant.String || !eventValue.MatchString(constant.StringVal(v)) {
				continue
			}
			payload := l.typ(x + "Payload")
			if payload == nil {
				continue // an event the plugin reads but does not log
			}
			c.Events = append(c.Events, Event{Name: constant.StringVal(v), Const: name, Payload: l.typeDecl(payload)})
		}
		if x, ok := strings.CutSuffix(name, "ToolName"); ok && x != "" {
			t := CompanionTool{Name: l.str(name), Const: name, Description: l.str(x + "ToolDescription")}
			if l.declared(x + "InputSchema") {
				t.InputSchema = l.json(x + "InputSchema")
			}
			c.Tools = append(c.Tools, t)
		}
	}
	if l.declared(nameSection) && l.declared(nameSectionOrder) {
		c.Section = &Section{Name: l.str(nameSection), Order: l.int(nameSectionOrder)}
	}
	if len(l.bad) > 0 {
		return Companion{}, fmt.Errorf("catalog: %s: %w: %s", l.where, ErrBadDeclaration, strings.Join(l.bad, "; "))
	}
	if len(l.undocumented) > 0 {
		return Companion{}, fmt.Errorf("catalog: %s: %w: %s", l.where, ErrUndocumented, strings.Join(l.undocumented, ", "))
	}
	return c, nil
}

// CompanionsMarkdown renders the companions' catalogs, in the order given,
// as the text between the markers of the companions page. Like
// [Catalog.Markdown] it is the same on every language version of the page.
func CompanionsMarkdown(cs []Companion) []byte {
	var w mdWriter
	w.line("")
	w.line("<!-- Source: the companion packages. Regenerate with: go run ./scripts/gen-catalog -->")
	w.line("")
	for _, c := range cs {
		w.heading(3, "Plugin `%s` (package `%s`)", c.Config.Plugin, c.Package)
		w.line("Configuration keys of type `%s` (`%s`):", c.Config.Type.Name, c.Config.Type.File)
		w.line("")
		w.line("| Key | YAML type | Description |")
		w.line("| --- | --- | --- |")
		for _, k := range c.Config.Keys {
			w.line("| `%s` | %s | %s |", k.Key, k.Type, cell(k.Doc))
		}
		w.line("")
		for _, e := range c.Events {
			w.heading(4, "Event `%s`", e.Name)
			w.line("Payload type `%s` (`%s`), named by the constant `%s`:", e.Payload.Name, e.Payload.File, e.Const)
			w.line("")
			w.code("go", e.Payload.Doc, e.Payload.Code)
		}
		for _, t := range c.Tools {
			w.heading(4, "Tool `%s`", t.Name)
			w.line("Named by the constant `%s`. Description, as the model reads it:", t.Const)
			w.line("")
			w.code("text", "", t.Description)
			if t.InputSchema != "" {
				w.line("Input schema:")
				w.line("")
				w.code("json", "", t.InputSchema)
			}
		}
		if c.Section != nil {
			w.heading(4, "Section `%s`", c.Section.Name)
			w.line("- Order: %d (constant `%s`)", c.Section.Order, nameSectionOrder)
			w.line("")
		}
	}
	return w.bytes()
}
