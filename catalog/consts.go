package catalog

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// typeCheck type-checks the package with go/types, so that its constants
// get the values the compiler gives them. The packages it imports are read
// from the export data that `go list -export` reports; go list runs in the
// current directory, which resolves import paths as go/build does. Type
// errors are returned, not reported: a missing declaration says more.
func typeCheck(fset *token.FileSet, files []*ast.File, name string) (*types.Package, []error, error) {
	exports, err := exportData(files)
	if err != nil {
		return nil, nil, err
	}
	var typeErrs []error
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			if f, ok := exports[path]; ok {
				return os.Open(f)
			}
			return nil, fmt.Errorf("go list reported no export data for %s", path)
		}),
		Error: func(err error) { typeErrs = append(typeErrs, err) },
	}
	pkg, _ := conf.Check(name, fset, files, nil)
	return pkg, typeErrs, nil
}

// exportData maps the packages that files import, and the packages those
// import, to their export data files.
func exportData(files []*ast.File) (map[string]string, error) {
	var paths []string
	for _, f := range files {
		for _, im := range f.Imports {
			if p, err := strconv.Unquote(im.Path.Value); err == nil && !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", "--"}, paths...)
	out, err := exec.Command("go", args...).Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return nil, fmt.Errorf("go list -export: %w: %s", err, strings.TrimSpace(string(ee.Stderr)))
	} else if err != nil {
		return nil, fmt.Errorf("go list -export: %w", err)
	}
	exports := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			exports[path] = file
		}
	}
	return exports, nil
}

// lookup returns the package-level constant name or, when the package has
// none, the one spelled with a lower-case first letter (exitInputSchema for
// ExitInputSchema): a text the catalog shows by its value may be unexported.
// It returns nil when neither is declared.
func (l *loader) lookup(name string) *types.Const {
	for _, n := range []string{name, unexported(name)} {
		if c, ok := l.types.Scope().Lookup(n).(*types.Const); ok {
			return c
		}
	}
	return nil
}

// unexported returns name with a lower-case first letter.
func unexported(name string) string {
	return strings.ToLower(name[:1]) + name[1:]
}

// declared reports whether the package declares the exported constant name.
func (l *loader) declared(name string) bool {
	c := l.lookup(name)
	return c != nil && c.Exported()
}

// constant looks name up and checks its kind; a problem is recorded.
func (l *loader) constant(name string, want constant.Kind) (constant.Value, bool) {
	c := l.lookup(name)
	switch {
	case c == nil:
		l.bad = append(l.bad, fmt.Sprintf("const %s: not declared in the package", name))
	case c.Val().Kind() != want:
		l.bad = append(l.bad, fmt.Sprintf("const %s: is a %s constant (%s), want %s", c.Name(), c.Val().Kind(), c.Val(), want))
	default:
		return c.Val(), true
	}
	return nil, false
}

// constName returns the name under which the package declares the constant
// name: name itself, or its lower-case spelling (see lookup).
func (l *loader) constName(name string) string {
	if c := l.lookup(name); c != nil {
		return c.Name()
	}
	return name
}
