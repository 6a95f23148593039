package catalog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// FuzzConstEval feeds arbitrary constant expressions to the evaluator: it
// must return a value or an error, never panic (go/constant panics on
// operands of mismatched kinds, which the evaluator must check first).
func FuzzConstEval(f *testing.F) {
	for _, seed := range []string{
		`"plan:" + policy`,
		`base + 10*iota`,
		`1 << 5 + 18`,
		`int(len("0123456789")) * 5`,
		`-(-50)`,
		`"a" + 1`,
		`1 / 0`,
		`1.5 % 2`,
		`^1.5`,
		`!1`,
		`1 << 100000`,
		`1 << -1`,
		`2i * 3`,
		`"a" < "b" && true`,
		`true < false`,
		`X`,
		`host.X`,
		`f(1, 2)`,
		`T("x")`,
		`(T)(1)`,
		`0x1p-2 / 3`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		src := "package p\nconst (\n\tbase = 50\n\tpolicy = \"policy\"\n\tX = " + expr + "\n)\n"
		file, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
		if err != nil {
			return
		}
		idx := indexConsts([]*ast.File{file})
		v, err := idx.value("X")
		if err == nil && v == nil {
			t.Fatalf("value(%q) returned neither a value nor an error", expr)
		}
	})
}
