package catalog

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
)

// Companion is the surface of a companion plugin of plan mode, extracted
// from its package by naming convention:
//
//   - PluginName (string constant) and Config (struct with yaml tags), as
//     for the plan-mode plugin;
//   - each exported string constant EventX names a log event whose payload
//     type is XPayload;
//   - each exported string constant PToolName names a tool, described by
//     PToolDescription and with the input schema PInputSchema (P may be
//     empty);
//   - each exported string constant PSectionName names a prompt section
//     placed by the integer constant PSectionOrder.
type Companion struct {
	// Package is the package's name.
	Package string
	// config is the plugin's configuration.
	Config config
	// Events are the plugin's log events, by constant name.
	Events []event
	// Tools are the plugin's tools, by constant name.
	Tools []companionTool
	// Sections are the plugin's prompt sections, by constant name.
	Sections []companionSection
}

// companionTool is a companion's tool.
type companionTool struct {
	// Const names the constant that names the tool.
	Const string
	// Name, Description and InputSchema (indented) are the tool's.
	Name, Description, InputSchema string
}

// companionSection is a companion's prompt section.
type companionSection struct {
	// Const names the constant that names the section.
	Const string
	section
}

// Suffixes and prefixes of the naming convention.
const (
	prefixEvent       = "Event"
	suffixPayload     = "Payload"
	suffixToolName    = "ToolName"
	suffixToolDesc    = "ToolDescription"
	suffixInputSchema = "InputSchema"
	suffixSectionName = "SectionName"
	suffixSectionOrd  = "SectionOrder"
)

// LoadCompanion reads the companion plugin package in dir and extracts its
// surface by the convention [Companion] describes. A constant whose
// partners are missing, or of the wrong kind, is errBadDeclaration; an
// undocumented payload or config field is errUndocumented.
func LoadCompanion(dir string) (Companion, error) {
	l, err := newLoader(dir)
	if err != nil {
		return Companion{}, err
	}
	var missing []string
	if !l.declared(namePlugin) {
		missing = append(missing, fmt.Sprintf("%s %s", kindString, namePlugin))
	}
	if l.typ(nameConfig) == nil {
		missing = append(missing, fmt.Sprintf("%s %s", kindType, nameConfig))
	}
	if len(missing) > 0 {
		return Companion{}, fmt.Errorf("catalog: %s: %w: %s", l.where, ErrMissing, strings.Join(missing, ", "))
	}
	if err := l.typeError(); err != nil {
		return Companion{}, err
	}
	c := Companion{Package: l.doc.Name, Config: l.config()}
	for _, name := range l.types.Scope().Names() { // sorted
		if _, ok := l.types.Scope().Lookup(name).(*types.Const); !ok || !token.IsExported(name) {
			continue
		}
		switch {
		case strings.HasPrefix(name, prefixEvent) && len(name) > len(prefixEvent) && l.isString(name):
			payload := strings.TrimPrefix(name, prefixEvent) + suffixPayload
			t := l.typ(payload)
			if t == nil {
				l.bad = append(l.bad, fmt.Sprintf("const %s: no payload type %s", name, payload))
				continue
			}
			c.Events = append(c.Events, event{Name: l.str(name), Const: name, Payload: l.typeDecl(t)})
		case strings.HasSuffix(name, suffixToolName):
			prefix := strings.TrimSuffix(name, suffixToolName)
			c.Tools = append(c.Tools, companionTool{
				Const:       name,
				Name:        l.str(name),
				Description: l.str(prefix + suffixToolDesc),
				InputSchema: l.json(prefix + suffixInputSchema),
			})
		case strings.HasSuffix(name, suffixSectionName):
			prefix := strings.TrimSuffix(name, suffixSectionName)
			c.Sections = append(c.Sections, companionSection{Const: name,
				section: section{Name: l.str(name), Order: l.int(prefix + suffixSectionOrd)}})
		}
	}
	if len(l.bad) > 0 {
		return Companion{}, fmt.Errorf("catalog: %s: %w: %s", l.where, errBadDeclaration, strings.Join(l.bad, "; "))
	}
	if len(l.undocumented) > 0 {
		return Companion{}, fmt.Errorf("catalog: %s: %w: %s", l.where, errUndocumented, strings.Join(l.undocumented, ", "))
	}
	return c, nil
}

// isString reports whether name is a string constant.
func (l *loader) isString(name string) bool {
	c := l.lookup(name)
	return c != nil && c.Val().Kind() == constant.String
}

// Markdown renders the companion's part of the catalog: a level-3 heading
// and level-4 parts, the same for every language version of a page.
func (c Companion) Markdown() []byte {
	var w mdWriter
	w.heading(3, "Companion `%s`", c.Config.Plugin)
	w.line("Package `%s`: %d %s, %d %s, %d %s.", c.Package,
		len(c.Events), plural(len(c.Events), "event", "events"),
		len(c.Tools), plural(len(c.Tools), "tool", "tools"),
		len(c.Sections), plural(len(c.Sections), "section", "sections"))
	w.line("")
	w.heading(4, "Configuration `plugins.%s`", c.Config.Plugin)
	if len(c.Config.Keys) == 0 {
		w.line("No keys: enable it with an empty entry.")
		w.line("")
	} else {
		w.line("| Key | YAML type | Description |")
		w.line("| --- | --- | --- |")
		for _, k := range c.Config.Keys {
			w.line("| `%s` | %s | %s |", k.Key, k.Type, cell(k.Doc))
		}
		w.line("")
	}
	w.code("go", c.Config.Type.Doc, c.Config.Type.Code)
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
		w.line("Input schema:")
		w.line("")
		w.code("json", "", t.InputSchema)
	}
	for _, s := range c.Sections {
		w.heading(4, "Section `%s`", s.Name)
		w.line("- Name: `%s` (constant `%s`)", s.Name, s.Const)
		w.line("- Order: %d", s.Order)
		w.line("")
	}
	return w.bytes()
}
