package catalog

import (
	"bytes"
	"fmt"
	"go/token"
	"strings"
)

// The service's name as host code reaches it.
const serviceName = "ctx.planMode"

// Markdown renders the catalog as the text that goes between the markers of
// a doc page. The text starts and ends with a blank line, uses headings from
// level 3 down (the page puts it under a level-2 heading of its own), and is
// the same for every language version of the page: the Go declarations and
// their doc comments are the contract and are not translated.
func (c Catalog) Markdown() []byte {
	var w mdWriter
	w.line("")
	w.line("<!-- Source: package %s. Regenerate with: go run ./scripts/gen-catalog -->", c.Package)
	w.line("")

	if len(c.Wiring.Decls) > 0 {
		w.heading(3, "Installing the plugin")
		w.line("The plugin is the `%s` service (`%s` in Cordis terms). An fx application installs it with `Module`;", c.Service.Name, serviceName)
		w.line("without fx, a host calls `New` with `Params`, then `Start` and `Stop` on the `%s`.", c.Service.Name)
		w.line("")
		for _, d := range c.Wiring.Decls {
			w.heading(4, "%s", d.Name)
			w.code("go", d.Doc, d.Code)
		}
	}

	s := c.Service
	w.heading(3, "Service: the `%s` service (`%s` in Cordis terms)", s.Name, serviceName)
	w.line("Type `%s` (`%s`), with %d exported %s:", s.Name, s.File, len(s.Methods), plural(len(s.Methods), "method", "methods"))
	for _, m := range s.Methods {
		w.line("[`%s`](#%s),", shortName(m.Name), anchor(shortName(m.Name)))
	}
	w.trimComma()
	w.line("")
	w.code("go", s.Doc, s.Code)
	for _, m := range s.Methods {
		w.heading(4, "%s", shortName(m.Name))
		w.code("go", m.Doc, m.Code)
	}
	if len(s.Types) > 0 {
		w.heading(3, "Types the service uses")
		for _, t := range s.Types {
			w.typeDecl(t)
		}
	}

	for _, e := range c.Events {
		w.heading(3, "Event `%s`", e.Name)
		w.line("Payload type `%s` (`%s`), named by the constant `%s`:", e.Payload.Name, e.Payload.File, e.Const)
		w.line("")
		w.code("go", e.Payload.Doc, e.Payload.Code)
	}

	w.heading(3, "Tool `%s`", c.Tool.Name)
	w.line("Named by the constant `%s`. Description%s, as the model reads it:", nameExitTool, constRef(" (`%s`)", c.Tool.DescriptionConst))
	w.line("")
	w.code("text", "", c.Tool.Description)
	w.line("Input schema%s:", constRef(" (`%s`)", c.Tool.InputSchemaConst))
	w.line("")
	w.code("json", "", c.Tool.InputSchema)
	w.line("Output schema%s:", constRef(" (`%s`)", c.Tool.OutputSchemaConst))
	w.line("")
	w.code("json", "", c.Tool.OutputSchema)

	w.heading(3, "Command `/%s`", c.Command.Name)
	w.line("- Name: `%s` (constant `%s`)", c.Command.Name, nameCommand)
	w.line("- Argument hint: `%s`%s", c.Command.Hint, constRef(" (constant `%s`)", c.Command.HintConst))
	w.line("- Help%s:", constRef(" (`%s`)", c.Command.DescriptionConst))
	w.line("")
	w.code("text", "", c.Command.Description)

	w.heading(3, "Section `%s`", c.Section.Name)
	w.line("- Name: `%s` (constant `%s`)", c.Section.Name, nameSection)
	w.line("- Order: %d (constant `%s`)", c.Section.Order, nameSectionOrder)
	w.line("")

	w.heading(3, "Configuration `plugins.%s`", c.Config.Plugin)
	w.line("Keys of type `%s` (`%s`); the block sits under the constant `%s`.", c.Config.Type.Name, c.Config.Type.File, namePlugin)
	w.line("")
	w.line("| Key | YAML type | Rules | Description |")
	w.line("| --- | --- | --- | --- |")
	for _, k := range c.Config.Keys {
		rules := "none"
		if k.Rules != "" {
			rules = "`" + k.Rules + "`"
		}
		w.line("| `%s` | %s | %s | %s |", k.Key, k.Type, cell(rules), cell(k.Doc))
	}
	w.line("")
	w.code("go", c.Config.Type.Doc, c.Config.Type.Code)
	return w.bytes()
}

// mdWriter builds Markdown line by line.
type mdWriter struct {
	b bytes.Buffer
}

func (w *mdWriter) line(format string, args ...any) {
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

func (w *mdWriter) heading(level int, format string, args ...any) {
	w.line("%s %s", strings.Repeat("#", level), fmt.Sprintf(format, args...))
	w.line("")
}

// trimComma turns the trailing ",\n" of the last line into ".\n".
func (w *mdWriter) trimComma() {
	if b := w.b.Bytes(); bytes.HasSuffix(b, []byte(",\n")) {
		w.b.Truncate(len(b) - 2)
		w.b.WriteString(".\n")
	}
}

// code writes a fenced block holding the doc comment, if any, and code. The
// fence is longer than any backtick run in the text, so a doc comment can
// never close it early.
func (w *mdWriter) code(lang, docText, code string) {
	body := strings.TrimRight(code, "\n")
	if docText != "" {
		body = docText + "\n" + body
	}
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	w.line("%s%s", fence, lang)
	w.line("%s", body)
	w.line("%s", fence)
	w.line("")
}

// typeDecl writes a type, its constants and its methods in one block.
func (w *mdWriter) typeDecl(t typeDecl) {
	w.heading(4, "%s", t.Name)
	parts := []string{join(t.Doc, t.Code)}
	for _, c := range t.Consts {
		parts = append(parts, join(c.Doc, c.Code))
	}
	for _, m := range t.Methods {
		parts = append(parts, join(m.Doc, m.Code))
	}
	w.code("go", "", strings.Join(parts, "\n\n"))
}

func (w *mdWriter) bytes() []byte {
	return bytes.Clone(w.b.Bytes())
}

func join(docText, code string) string {
	code = strings.TrimRight(code, "\n")
	if docText == "" {
		return code
	}
	return docText + "\n" + code
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// constRef formats a reference to the constant name, or returns "" when
// name is unexported: the catalog names only what host code can use.
func constRef(format, name string) string {
	if !token.IsExported(name) {
		return ""
	}
	return fmt.Sprintf(format, name)
}

// shortName drops the receiver type from "Type.Method".
func shortName(name string) string {
	if _, m, ok := strings.Cut(name, "."); ok {
		return m
	}
	return name
}

// anchor returns the GitHub-style anchor of a heading text made of letters,
// digits, '-' and '_'.
func anchor(text string) string {
	return strings.ToLower(text)
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
