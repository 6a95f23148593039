package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
)

// TestCompanionsExampleEnablesEveryPlugin: examples/deploy-companions.yaml,
// which says it enables every companion, has an entry for every plugin a
// deployment file may enable in planhost.
func TestCompanionsExampleEnablesEveryPlugin(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "deploy-companions.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Plugins map[string]yaml.Node `yaml:"plugins"`
	}
	if err := yaml.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	plugins := wiring.Plugins()
	if len(plugins) < 8 {
		t.Fatalf("planhost knows only %d plugins", len(plugins))
	}
	for _, p := range plugins {
		if _, ok := file.Plugins[p.Name]; !ok {
			t.Errorf("examples/deploy-companions.yaml does not enable %s", p.Name)
		}
	}
}

// reviewKeys are the keys of a plan review's menu: the constants
// present's menu.go declares for them (KeyApprove, ..., DiffKey).
func reviewKeys(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "..", "internal", "present", "menu.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			for i, name := range v.Names {
				if !strings.HasPrefix(name.Name, "Key") && name.Name != "DiffKey" || i >= len(v.Values) {
					continue
				}
				if lit, ok := v.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					k, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					keys = append(keys, k)
				}
			}
		}
	}
	if len(keys) < 10 {
		t.Fatalf("found only the review keys %q in menu.go", keys)
	}
	return keys
}

// TestReviewKeysAreListed: "planhost run -h" and examples/script.yaml list
// every key a plan review's menu may answer to, in brackets as the menus
// show them.
func TestReviewKeysAreListed(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", "examples", "script.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"run -h": usageRun, "examples/script.yaml": string(script)} {
		for _, k := range reviewKeys(t) {
			if !strings.Contains(text, "["+k+"]") {
				t.Errorf("%s does not list the review key [%s]:\n%s", name, k, text)
			}
		}
	}
}
