// Package catalog extracts the public surface of the plan-mode plugin from
// its Go source and renders it as the Markdown API catalog of the docs.
//
// [Load] reads one package directory with go/parser, go/types and go/doc
// and finds the declarations listed by required by name: the controller
// service with every exported method (signature and doc comment, verbatim), the plan/mode
// and plan/cancel events and their payloads, the exit tool, the /plan command, the prompt section
// and the configuration keys. [Catalog.Markdown] renders them in a fixed
// order, with no timestamps and no absolute paths, so that the output changes
// only when the source does.
//
// [Inject] writes rendered text between the [BeginMarker] and [EndMarker]
// lines of a page; handWritten, [ProseDigest] and [Headings] serve the
// checks that keep the two language versions of a page in step.
package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/constant"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Errors of [Load]. They are wrapped with the package directory and the
// names of the declarations involved.
var (
	// ErrMissing means a declaration of required is not in the package.
	ErrMissing = errors.New("missing declaration")
	// errUndocumented means an exported name the catalog prints has no doc
	// comment.
	errUndocumented = errors.New("missing doc comment")
	// errBadDeclaration means a required declaration has the wrong shape:
	// a constant of the wrong kind, a schema that is not JSON, a config field
	// without a yaml tag; or that the package does not type-check.
	errBadDeclaration = errors.New("unusable declaration")
)

// itemKind says what kind of declaration an item is.
type itemKind string

// The kinds of required declarations.
const (
	// kindType is a type declaration.
	kindType itemKind = "type"
	// kindString is a string constant.
	kindString itemKind = "string constant"
	// kindInt is an integer constant.
	kindInt itemKind = "integer constant"
	// kindJSON is a string constant holding a JSON document.
	kindJSON itemKind = "JSON string constant"
)

// item is one declaration the catalog needs from the plugin package.
type item struct {
	// Kind is what the declaration must be.
	Kind itemKind
	// Name is the declared name.
	Name string
	// Role says what the declaration is for, for error messages.
	Role string
	// ByValue marks a constant the catalog shows by its value, not its
	// name: host code need not see it, so it may be unexported (spelled
	// with a lower-case first letter).
	ByValue bool
}

// The names of the required declarations.
const (
	nameController    = "Controller"
	nameConfig        = "Config"
	namePayload       = "ModePayload"
	namePlugin        = "PluginName"
	nameEvent         = "EventPlanMode"
	nameCancelPayload = "CancelPayload"
	nameCancelEvent   = "EventPlanCancel"
	// The plan/reopen event is optional: listed when the package has it.
	nameReopenPayload    = "ReopenPayload"
	nameReopenEvent      = "EventPlanReopen"
	nameSection          = "SectionName"
	nameSectionOrder     = "SectionOrder"
	nameExitTool         = "ExitToolName"
	nameExitInputSchema  = "ExitInputSchema"
	nameExitOutputSchema = "ExitOutputSchema"
	nameExitDescription  = "ExitToolDescription"
	nameCommand          = "CommandName"
	nameCommandHint      = "CommandHint"
	nameCommandDesc      = "CommandDescription"
)

// required returns every declaration [Load] looks up, in a fixed order. A
// package that lacks one of them, or declares it with the wrong kind, is not
// a plan-mode plugin the catalog can describe.
func required() []item {
	return []item{
		{kindType, nameController, "the ctx.planMode service", false},
		{kindType, nameConfig, "the plugin's configuration", false},
		{kindType, namePayload, "the payload of the plan/mode event", false},
		{kindString, namePlugin, "the plugin's name, also its config key", false},
		{kindString, nameEvent, "the plan/mode event type", false},
		{kindType, nameCancelPayload, "the payload of the plan/cancel event", false},
		{kindString, nameCancelEvent, "the plan/cancel event type", false},
		{kindString, nameSection, "the prompt section's name", false},
		{kindInt, nameSectionOrder, "the prompt section's order", false},
		{kindString, nameExitTool, "the exit tool's name", false},
		{kindString, nameExitDescription, "the exit tool's description for the model", true},
		{kindJSON, nameExitInputSchema, "the exit tool's input JSON schema", true},
		{kindJSON, nameExitOutputSchema, "the exit tool's output JSON schema", true},
		{kindString, nameCommand, "the /plan command's name", false},
		{kindString, nameCommandHint, "the /plan command's argument hint", true},
		{kindString, nameCommandDesc, "the /plan command's one-line help", true},
	}
}

// Catalog is the plugin surface extracted from a package's source.
type Catalog struct {
	// Package is the package's name.
	Package string
	// wiring is how a host installs the plugin: the fx module, the
	// constructor and their inputs (wiring).
	Wiring wiring
	// service is the controller type, the ctx.planMode service.
	Service service
	// Events are the log events: plan/mode, then plan/cancel, then
	// plan/reopen when the package declares it.
	Events []event
	// tool is the exit tool.
	Tool tool
	// command is the /plan command.
	Command command
	// section is the prompt section.
	Section section
	// config is the plugin's configuration.
	Config config
}

// wiring holds the declarations a host uses to install the plugin, in the
// order the catalog shows them: the fx module (Module and, when declared,
// ModuleWith), the constructor New, its input Params, and Config.
type wiring struct {
	// Decls are the declarations, doc comments included.
	Decls []decl
}

// decl is one declaration as it reads in the source.
type decl struct {
	// Name is the declared name; Type.Method for a method.
	Name string
	// File is the base name of the file that declares it.
	File string
	// Doc is the doc comment exactly as in the source, comment markers
	// included; empty when there is none.
	Doc string
	// Code is the declaration printed by go/printer: a signature without
	// body for a function, the type with its exported fields only for a type.
	Code string
}

// typeDecl is a type with the constants and methods declared for it.
type typeDecl struct {
	decl
	// Consts are the groups of constants of the type.
	Consts []decl
	// Methods are the exported methods, sorted by name.
	Methods []decl
}

// service is the controller type and what its methods refer to.
type service struct {
	typeDecl
	// Types are the package's other types that the methods' signatures name,
	// in order of first use.
	Types []typeDecl
}

// event is a log event type and its payload.
type event struct {
	// Name is the event type, from the constant Const.
	Name string
	// Const is the constant that names the event: EventPlanMode,
	// EventPlanCancel or EventPlanReopen.
	Const string
	// Payload is the payload type.
	Payload typeDecl
}

// tool is a model-facing tool.
type tool struct {
	// Name is the tool's name, from ExitToolName.
	Name string
	// Description is what the model is told about the tool, from
	// ExitToolDescription.
	Description string
	// InputSchema and OutputSchema are the JSON schemas, from
	// ExitInputSchema and ExitOutputSchema, indented.
	InputSchema, OutputSchema string
	// DescriptionConst, InputSchemaConst and OutputSchemaConst are the
	// names those constants are declared under, exported or not.
	DescriptionConst, InputSchemaConst, OutputSchemaConst string
}

// command is a slash command.
type command struct {
	// Name is the command without the slash, from CommandName.
	Name string
	// Hint is the argument hint, from CommandHint.
	Hint string
	// Description is the one-line help, from CommandDescription.
	Description string
	// HintConst and DescriptionConst are the names those constants are
	// declared under, exported or not.
	HintConst, DescriptionConst string
}

// section is a system-prompt section.
type section struct {
	// Name is the section's name, from SectionName.
	Name string
	// Order places the section, from SectionOrder.
	Order int64
}

// config is the plugin's configuration block.
type config struct {
	// Plugin is the key the block sits under in the deployment's plugins
	// map, from PluginName.
	Plugin string
	// Type is the config struct.
	Type decl
	// Keys are the YAML keys, in field order.
	Keys []configKey
}

// configKey is one YAML key of the configuration.
type configKey struct {
	// Key is the YAML key, from the field's yaml tag.
	Key string
	// Field is the Go field's name.
	Field string
	// Type is the YAML type the key takes: string, integer, boolean, list,
	// map, or the Go type when none of these fit.
	Type string
	// Rules is the field's validate tag, empty when it has none.
	Rules string
	// Doc is the field's doc comment as text, on one line.
	Doc string
}

// Load reads the Go package in dir (its non-test files that build for the
// current platform) and extracts the catalog. It fails with [ErrMissing]
// naming every declaration of required that is absent, with
// errUndocumented naming every printed name without a doc comment, and
// with errBadDeclaration for a declaration of the wrong shape or the
// package's type errors.
func Load(dir string) (Catalog, error) {
	l, err := newLoader(dir)
	if err != nil {
		return Catalog{}, err
	}
	if err := l.checkRequired(); err != nil {
		return Catalog{}, err
	}
	if err := l.typeError(); err != nil {
		return Catalog{}, err
	}
	c := Catalog{Package: l.doc.Name}
	c.Wiring = l.wiring()
	c.Service = l.service()
	c.Events = []event{
		{Name: l.str(nameEvent), Const: nameEvent, Payload: l.typeDecl(l.typ(namePayload))},
		{Name: l.str(nameCancelEvent), Const: nameCancelEvent, Payload: l.typeDecl(l.typ(nameCancelPayload))},
	}
	if l.declared(nameReopenEvent) && l.typ(nameReopenPayload) != nil {
		c.Events = append(c.Events, event{Name: l.str(nameReopenEvent), Const: nameReopenEvent, Payload: l.typeDecl(l.typ(nameReopenPayload))})
	}
	c.Tool = tool{
		Name:         l.str(nameExitTool),
		Description:  l.str(nameExitDescription),
		InputSchema:  l.json(nameExitInputSchema),
		OutputSchema: l.json(nameExitOutputSchema),

		DescriptionConst:  l.constName(nameExitDescription),
		InputSchemaConst:  l.constName(nameExitInputSchema),
		OutputSchemaConst: l.constName(nameExitOutputSchema),
	}
	c.Command = command{Name: l.str(nameCommand), Hint: l.str(nameCommandHint), Description: l.str(nameCommandDesc),
		HintConst: l.constName(nameCommandHint), DescriptionConst: l.constName(nameCommandDesc)}
	c.Section = section{Name: l.str(nameSection), Order: l.int(nameSectionOrder)}
	c.Config = l.config()
	if len(l.bad) > 0 {
		return Catalog{}, fmt.Errorf("catalog: %s: %w: %s", l.where, errBadDeclaration, strings.Join(l.bad, "; "))
	}
	if len(l.undocumented) > 0 {
		return Catalog{}, fmt.Errorf("catalog: %s: %w: %s", l.where, errUndocumented, strings.Join(l.undocumented, ", "))
	}
	return c, nil
}

// parseDir parses the package's non-test Go files that go/build selects for
// the current build context, in file name order. Files are named by their
// base names, so that positions in messages are short.
func parseDir(fset *token.FileSet, dir string) ([]*ast.File, string, error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil, "", err
	}
	files := make([]*ast.File, len(bp.GoFiles))
	for i, name := range bp.GoFiles {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, "", err
		}
		if files[i], err = parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution); err != nil {
			return nil, "", err
		}
	}
	return files, bp.Name, nil
}

// loader carries the state of one Load. Problems are collected so that one
// run names all of them.
type loader struct {
	fset         *token.FileSet
	types        *types.Package
	typeErrs     []error
	doc          *doc.Package
	where        string
	bad          []string
	undocumented []string
}

// newLoader parses the package in dir, type-checks it, and reads its
// documentation.
func newLoader(dir string) (*loader, error) {
	fset := token.NewFileSet()
	files, pkgName, err := parseDir(fset, dir)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	l := &loader{fset: fset, where: fmt.Sprintf("package %s (%s)", pkgName, dir)}
	if l.types, l.typeErrs, err = typeCheck(fset, files, pkgName); err != nil {
		return nil, fmt.Errorf("catalog: %s: %w", l.where, err)
	}
	// go/doc drops unexported declarations from the files, so it runs
	// after go/types.
	if l.doc, err = doc.NewFromFiles(fset, files, pkgName, doc.PreserveAST); err != nil {
		return nil, fmt.Errorf("catalog: %s: %w", l.where, err)
	}
	return l, nil
}

// typeError returns the package's type errors as one errBadDeclaration, or
// nil when it has none.
func (l *loader) typeError() error {
	if len(l.typeErrs) == 0 {
		return nil
	}
	msgs := make([]string, len(l.typeErrs))
	for i, err := range l.typeErrs {
		msgs[i] = err.Error()
	}
	return fmt.Errorf("catalog: %s: %w: type errors: %s", l.where, errBadDeclaration, strings.Join(msgs, "; "))
}

func (l *loader) checkRequired() error {
	var missing []string
	for _, it := range required() {
		ok, name := false, it.Name
		if it.Kind == kindType {
			ok = l.typ(it.Name) != nil
		} else if c := l.lookup(it.Name); c != nil {
			ok = c.Exported() || it.ByValue
		}
		if it.ByValue {
			name += " or " + unexported(name)
		}
		if !ok {
			missing = append(missing, fmt.Sprintf("%s %s (%s)", it.Kind, name, it.Role))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("catalog: %s: %w: %s", l.where, ErrMissing, strings.Join(missing, ", "))
	}
	return nil
}

// typ returns the exported type named name, or nil.
func (l *loader) typ(name string) *doc.Type {
	for _, t := range l.doc.Types {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (l *loader) str(name string) string {
	v, ok := l.constant(name, constant.String)
	if !ok {
		return ""
	}
	return constant.StringVal(v)
}

func (l *loader) int(name string) int64 {
	v, ok := l.constant(name, constant.Int)
	if !ok {
		return 0
	}
	n, exact := constant.Int64Val(v)
	if !exact {
		l.bad = append(l.bad, fmt.Sprintf("const %s: %s does not fit in 64 bits", l.constName(name), v))
	}
	return n
}

// json resolves a string constant holding JSON and returns it indented.
func (l *loader) json(name string) string {
	v, ok := l.constant(name, constant.String)
	if !ok {
		return ""
	}
	s := constant.StringVal(v)
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(s), "", "  "); err != nil {
		l.bad = append(l.bad, fmt.Sprintf("const %s: not a JSON document: %v", l.constName(name), err))
		return ""
	}
	return b.String()
}

// service extracts the controller, its methods and the types they name.
// Names of the wiring declarations; nameConfig is shared with the config
// table.
const (
	nameModule     = "Module"
	nameModuleWith = "ModuleWith"
	nameNew        = "New"
	nameParams     = "Params"
)

// wiring extracts Module, ModuleWith, New, Params and Config, each when the
// package declares it (a package that declares none of the first four, such
// as a test fixture, gets no wiring part).
func (l *loader) wiring() wiring {
	var w wiring
	for _, v := range l.doc.Vars {
		if slices.Contains(v.Names, nameModule) {
			w.Decls = append(w.Decls, decl{Name: nameModule, File: l.file(v.Decl.Pos()),
				Doc: l.rawDoc("var "+nameModule, v.Decl.Doc), Code: l.print(withoutDoc(v.Decl), nil)})
		}
	}
	funcs := slices.Clone(l.doc.Funcs)
	for _, t := range l.doc.Types {
		funcs = append(funcs, t.Funcs...) // go/doc files constructors under their result type
	}
	for _, name := range []string{nameModuleWith, nameNew} {
		i := slices.IndexFunc(funcs, func(f *doc.Func) bool { return f.Name == name })
		if i < 0 {
			continue
		}
		fd := *funcs[i].Decl
		fd.Doc, fd.Body = nil, nil
		w.Decls = append(w.Decls, decl{Name: name, File: l.file(fd.Pos()),
			Doc: l.rawDoc("func "+name, funcs[i].Decl.Doc), Code: l.print(&fd, nil)})
	}
	if t := l.typ(nameParams); t != nil {
		w.Decls = append(w.Decls, l.typeDecl(t).decl)
	}
	if len(w.Decls) == 0 {
		return w
	}
	w.Decls = append(w.Decls, l.typeDecl(l.typ(nameConfig)).decl)
	return w
}

func (l *loader) service() service {
	t := l.typ(nameController)
	s := service{typeDecl: l.typeDecl(t)}
	if len(s.Methods) == 0 {
		l.bad = append(l.bad, fmt.Sprintf("type %s: has no exported methods", nameController))
	}
	// The types the methods name, then the types those name, and so on, each
	// once, in order of first use.
	var names []string
	add := func(found []string) {
		for _, n := range found {
			if n != nameController && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	for _, m := range t.Methods {
		add(l.namedTypes(m.Decl.Type))
	}
	for i := 0; i < len(names); i++ {
		if spec, ok := typeSpec(l.typ(names[i])); ok {
			add(l.namedTypes(spec.Type))
		}
	}
	for _, n := range names {
		s.Types = append(s.Types, l.typeDecl(l.typ(n)))
	}
	return s
}

// namedTypes returns the package's exported types that a type expression
// names, in order of appearance.
func (l *loader) namedTypes(expr ast.Expr) []string {
	var names []string
	ast.Inspect(expr, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			return false // a type of another package
		case *ast.Ident:
			if l.typ(n.Name) != nil {
				names = append(names, n.Name)
			}
		}
		return true
	})
	return names
}

// typeDecl extracts a type with its documented constants and methods.
func (l *loader) typeDecl(t *doc.Type) typeDecl {
	spec, ok := typeSpec(t)
	if !ok {
		l.bad = append(l.bad, fmt.Sprintf("type %s: declaration not found", t.Name))
		return typeDecl{decl: decl{Name: t.Name}}
	}
	td := typeDecl{decl: decl{
		Name: t.Name,
		File: l.file(t.Decl.Pos()),
		Doc:  l.rawDoc("type "+t.Name, spec.Doc, t.Decl.Doc),
		Code: l.typeCode(t.Decl, spec),
	}}
	if st, ok := spec.Type.(*ast.StructType); ok {
		for _, f := range st.Fields.List {
			for _, n := range f.Names {
				if f.Doc == nil && f.Comment == nil {
					l.undoc(fmt.Sprintf("field %s.%s", t.Name, n.Name))
				}
			}
		}
	}
	for _, v := range t.Consts {
		td.Consts = append(td.Consts, decl{
			Name: strings.Join(v.Names, ", "),
			File: l.file(v.Decl.Pos()),
			Doc:  l.constDoc(v.Decl),
			Code: l.print(withoutDoc(v.Decl), specComments(v.Decl)),
		})
	}
	for _, m := range t.Methods {
		if m.Level > 0 {
			continue // promoted from an embedded type
		}
		fd := *m.Decl
		fd.Doc, fd.Body = nil, nil
		td.Methods = append(td.Methods, decl{
			Name: t.Name + "." + m.Name,
			File: l.file(m.Decl.Pos()),
			Doc:  l.rawDoc("method "+t.Name+"."+m.Name, m.Decl.Doc),
			Code: l.print(&fd, nil),
		})
	}
	return td
}

// config extracts the configuration keys from Config's fields.
func (l *loader) config() config {
	t := l.typ(nameConfig)
	c := config{Plugin: l.str(namePlugin), Type: l.typeDecl(t).decl}
	spec, ok := typeSpec(t)
	if !ok {
		return c
	}
	st, ok := spec.Type.(*ast.StructType)
	if !ok {
		l.bad = append(l.bad, fmt.Sprintf("type %s: is not a struct", nameConfig))
		return c
	}
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			l.bad = append(l.bad, fmt.Sprintf("type %s: embedded field %s: list the keys as named fields", nameConfig, types.ExprString(f.Type)))
			continue
		}
		var tag reflect.StructTag
		if f.Tag != nil {
			s, err := strconv.Unquote(f.Tag.Value)
			if err != nil {
				l.bad = append(l.bad, fmt.Sprintf("field %s.%s: malformed tag %s", nameConfig, f.Names[0].Name, f.Tag.Value))
				continue
			}
			tag = reflect.StructTag(s)
		}
		key, _, _ := strings.Cut(tag.Get("yaml"), ",")
		for _, n := range f.Names {
			switch {
			case key == "-":
				continue
			case key == "":
				l.bad = append(l.bad, fmt.Sprintf("field %s.%s: no yaml tag naming its key", nameConfig, n.Name))
				continue
			}
			c.Keys = append(c.Keys, configKey{
				Key:   key,
				Field: n.Name,
				Type:  yamlType(f.Type),
				Rules: tag.Get("validate"),
				Doc:   strings.Join(strings.Fields(fieldDoc(f).Text()), " "),
			})
		}
	}
	return c
}

// typeSpec returns the spec go/doc attached to t: its Decl holds exactly
// the one spec, also for a type declared in a group.
func typeSpec(t *doc.Type) (*ast.TypeSpec, bool) {
	if t.Decl == nil || len(t.Decl.Specs) != 1 {
		return nil, false
	}
	s, ok := t.Decl.Specs[0].(*ast.TypeSpec)
	return s, ok
}

// fieldDoc returns the field's doc comment, or its line comment when it has
// no doc comment.
func fieldDoc(f *ast.Field) *ast.CommentGroup {
	if f.Doc != nil {
		return f.Doc
	}
	return f.Comment
}

// yamlType names the YAML type a Go field type decodes from.
func yamlType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		switch t.Name {
		case "string":
			return "string"
		case "bool":
			return "boolean"
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
			return "integer"
		case "float32", "float64":
			return "number"
		}
	case *ast.StarExpr:
		return yamlType(t.X)
	case *ast.ArrayType:
		return "list"
	case *ast.MapType:
		return "map"
	}
	return types.ExprString(e)
}

// rawDoc returns the first non-nil comment group as written in the source,
// and records what as undocumented when there is none.
func (l *loader) rawDoc(what string, groups ...*ast.CommentGroup) string {
	for _, g := range groups {
		if g == nil {
			continue
		}
		lines := make([]string, len(g.List))
		for i, c := range g.List {
			lines[i] = c.Text
		}
		return strings.Join(lines, "\n")
	}
	l.undoc(what)
	return ""
}

// constDoc returns a const group's doc comment. A group is documented by
// its own comment or by one on each of its constants.
func (l *loader) constDoc(d *ast.GenDecl) string {
	if d.Doc != nil {
		return l.rawDoc("", d.Doc)
	}
	for _, s := range d.Specs {
		vs, ok := s.(*ast.ValueSpec)
		if !ok || vs.Doc != nil || vs.Comment != nil {
			continue
		}
		for _, n := range vs.Names {
			l.undoc("const " + n.Name)
		}
	}
	return ""
}

// undoc records an undocumented name once.
func (l *loader) undoc(what string) {
	if !slices.Contains(l.undocumented, what) {
		l.undocumented = append(l.undocumented, what)
	}
}

// file returns the base name of the file holding pos.
func (l *loader) file(pos token.Pos) string {
	return filepath.Base(l.fset.Position(pos).Filename)
}

// typeCode prints a type declaration without its doc comment. A struct type
// shows its exported fields with their comments and, when go/doc filtered
// some out, a line saying so.
func (l *loader) typeCode(d *ast.GenDecl, spec *ast.TypeSpec) string {
	s := *spec
	s.Doc, s.Comment = nil, nil
	if st, ok := s.Type.(*ast.StructType); ok {
		return l.structCode(&s, st)
	}
	return l.print(&ast.GenDecl{TokPos: d.TokPos, Tok: token.TYPE, Specs: []ast.Spec{&s}}, nil)
}

// structCode prints a struct type from its remaining fields. The printer
// places comments by their source positions, which leaves gaps where fields
// were filtered out, so the declaration is written out again, parsed, and
// printed from that clean source.
func (l *loader) structCode(s *ast.TypeSpec, st *ast.StructType) string {
	var b strings.Builder
	b.WriteString("package p\n\ntype " + s.Name.Name)
	if s.TypeParams != nil {
		b.WriteString(l.print(s.TypeParams, nil))
	}
	b.WriteString(" struct {\n")
	for _, f := range st.Fields.List {
		if f.Doc != nil {
			for _, c := range f.Doc.List {
				b.WriteString("\t" + c.Text + "\n")
			}
		}
		b.WriteString("\t")
		for i, n := range f.Names {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(n.Name)
		}
		if len(f.Names) > 0 {
			b.WriteString(" ")
		}
		b.WriteString(l.print(f.Type, nil))
		if f.Tag != nil {
			b.WriteString(" " + f.Tag.Value)
		}
		if f.Comment != nil {
			for _, c := range f.Comment.List {
				b.WriteString(" " + c.Text)
			}
		}
		b.WriteString("\n")
	}
	if st.Incomplete {
		b.WriteString("\t// contains filtered or unexported fields\n")
	}
	b.WriteString("}\n")
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", b.String(), parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		l.bad = append(l.bad, fmt.Sprintf("type %s: reprinting: %v", s.Name.Name, err))
		return ""
	}
	var out bytes.Buffer
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := cfg.Fprint(&out, fset, &printer.CommentedNode{Node: f.Decls[0], Comments: f.Comments}); err != nil {
		l.bad = append(l.bad, fmt.Sprintf("type %s: printing: %v", s.Name.Name, err))
	}
	return out.String()
}

// withoutDoc returns a copy of d without its doc comment.
func withoutDoc(d *ast.GenDecl) *ast.GenDecl {
	c := *d
	c.Doc = nil
	return &c
}

// specComments returns the comments of d's specs.
func specComments(d *ast.GenDecl) []*ast.CommentGroup {
	var groups []*ast.CommentGroup
	for _, s := range d.Specs {
		if vs, ok := s.(*ast.ValueSpec); ok {
			groups = appendGroups(groups, vs.Doc, vs.Comment)
		}
	}
	return groups
}

func appendGroups(dst []*ast.CommentGroup, gs ...*ast.CommentGroup) []*ast.CommentGroup {
	for _, g := range gs {
		if g != nil {
			dst = append(dst, g)
		}
	}
	return dst
}

// print formats node as gofmt does, with the given comments.
func (l *loader) print(node ast.Node, comments []*ast.CommentGroup) string {
	var b bytes.Buffer
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	var n any = node
	if len(comments) > 0 {
		n = &printer.CommentedNode{Node: node, Comments: comments}
	}
	if err := cfg.Fprint(&b, l.fset, n); err != nil {
		l.bad = append(l.bad, fmt.Sprintf("printing %T: %v", node, err))
	}
	return b.String()
}
