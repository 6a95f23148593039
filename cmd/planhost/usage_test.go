package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// TestHelpListsEverySubcommand reads the subcommands planhost dispatches
// (the cases of program.main in main.go) and checks that "planhost -h"
// lists each one, and that each answers -h.
func TestHelpListsEverySubcommand(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		fn, ok := n.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "main" || fn.Recv == nil {
			return true
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CaseClause); ok {
				for _, e := range c.List {
					if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if name, err := strconv.Unquote(lit.Value); err == nil && name != "help" && !strings.HasPrefix(name, "-") {
							names = append(names, name)
						}
					}
				}
			}
			return true
		})
		return false
	})
	if len(names) < 5 {
		t.Fatalf("found only the subcommands %q in main.go", names)
	}
	out, _ := mustMain(t, exitOK, "", "-h")
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(out, "\n  planhost "+name+" ") {
				t.Errorf("planhost -h does not list %q:\n%s", name, out)
			}
			mustMain(t, exitOK, "", name, "-h")
		})
	}
}
