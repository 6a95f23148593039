package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
)

// The README pair lives at the repository root, outside the translation
// records of docs/, but its two sides share one heading structure too.
func TestREADMEPairSharesHeadings(t *testing.T) {
	en := mustRead(t, repoRoot, "README.md")
	zh := mustRead(t, repoRoot, "README.zh.md")
	if d := headingDifference("README.md", []byte(en), "README.zh.md", []byte(zh)); d != "" {
		t.Error(d)
	}
}

// The README's fx snippet is kept compiling by the godoc example: every
// statement of the README's fx.New call is in example_test.go.
func TestREADMESnippetIsInTheExample(t *testing.T) {
	example, err := os.ReadFile(filepath.Join(repoRoot, "example_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(example), "\n") {
		have[codeLine(l)] = true
	}
	for _, page := range []string{"README.md", "README.zh.md"} {
		snippet := fxSnippet(mustRead(t, repoRoot, page))
		if len(snippet) == 0 {
			t.Errorf("%s: no fx.New snippet found", page)
			continue
		}
		for _, l := range snippet {
			if !have[l] {
				t.Errorf("%s: snippet line %q is not in example_test.go", page, l)
			}
		}
	}
}

// fxSnippet returns the lines of the page's "app := fx.New(" call, each as
// codeLine returns it.
func fxSnippet(page string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(page, "\n") {
		c := codeLine(l)
		if c == "app := fx.New(" {
			in = true
		}
		if in && c != "" {
			out = append(out, c)
		}
		if in && c == ")" {
			break
		}
	}
	return out
}

// codeLine trims a Go line and drops its trailing line comment.
func codeLine(l string) string {
	if i := strings.Index(l, " //"); i >= 0 {
		l = l[:i]
	}
	return strings.TrimSpace(l)
}

// The docs quote the loader's message for a number given as the section;
// this keeps the quote true to the code.
func TestDocsQuoteTheLoadersMessage(t *testing.T) {
	const file = "plugins:\n  plan-mode:\n    section: 5\n"
	_, err := deploy.Parse("deploy.yaml", []byte(file), planmode.DeployPlugin())
	if err == nil {
		t.Fatal("deploy.Parse accepted a number as the section")
	}
	msg := err.Error()
	for _, page := range []string{"docs/plan-mode.md", "docs/plan-mode.zh.md"} {
		if !strings.Contains(mustRead(t, repoRoot, page), "\n"+msg+"\n") {
			t.Errorf("%s does not quote the loader's message on a line of its own:\n%s", page, msg)
		}
	}
	// The READMEs abbreviate it after the problem.
	short, _, _ := strings.Cut(msg, " (")
	for _, page := range []string{"README.md", "README.zh.md"} {
		if !strings.Contains(mustRead(t, repoRoot, page), "`"+short+" (...)`") {
			t.Errorf("%s does not quote the start of the loader's message: %s", page, short)
		}
	}
}
