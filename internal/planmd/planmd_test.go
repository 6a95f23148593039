package planmd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/planmd"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

func TestSteps(t *testing.T) {
	tests := []struct {
		name string
		give string
		want []string
	}{
		{"plain list", "# P\n\n1. a\n2. b\n", []string{"a", "b"}},
		{
			"continuation lines stay in the step",
			"# P\n\n1. Add the retry loop\n   with exponential backoff.\n2. Test it\n",
			[]string{"Add the retry loop\nwith exponential backoff.", "Test it"},
		},
		{
			"lazy continuation stays in the step",
			"# P\n\n1. Add the retry loop\nwith exponential backoff.\n2. Test it\n",
			[]string{"Add the retry loop\nwith exponential backoff.", "Test it"},
		},
		{
			"a fenced code block stays in its step and the list goes on",
			"# Deploy\n\n1. Build the binary:\n\n   ```sh\n   go build ./cmd/app\n   ```\n\n2. Copy it to the host.\n3. Restart the service.\n",
			[]string{"Build the binary:\n\n```sh\ngo build ./cmd/app\n```", "Copy it to the host.", "Restart the service."},
		},
		{
			"a nested numbered list is part of its step",
			"# P\n\n1. Build\n   1. compile\n   2. link\n2. Test\n",
			[]string{"Build\n1. compile\n2. link", "Test"},
		},
		{
			"nested bullets and deeper nesting",
			"# P\n\n1. Build\n   - compile\n     1. parse\n   - link\n2. Test\n",
			[]string{"Build\n- compile\n  1. parse\n- link", "Test"},
		},
		{
			"parenthesis markers and blank lines",
			"# P\n1) a\n\n2) b\n",
			[]string{"a", "b"},
		},
		{
			"a change of delimiter starts a new list",
			"# P\n\n1) a\n2) b\n\n1. x\n2. y\n",
			[]string{"a", "b"},
		},
		{
			"a change of delimiter without a blank line starts a new list too",
			"# P\n\n1) a\n2. x\n",
			[]string{"a"},
		},
		{
			"a heading inside an item",
			"# P\n\n1. ## Prepare\n   Read the code.\n2. ## Change\n   Edit it.\n",
			[]string{"## Prepare\nRead the code.", "## Change\nEdit it."},
		},
		{
			"a heading after the list ends it",
			"# P\n\n1. a\n2. b\n\n## Risks\n\n1. none\n",
			[]string{"a", "b"},
		},
		{
			"HTML inside an item",
			"# P\n\n1. Add <kbd>Ctrl</kbd> handling\n   <!-- note -->\n2. b\n",
			[]string{"Add <kbd>Ctrl</kbd> handling\n<!-- note -->", "b"},
		},
		{
			"an HTML block at column 0 ends the list",
			"# P\n\n1. a\n<div>\n2. no\n</div>\n",
			[]string{"a"},
		},
		{
			"CJK text",
			"# 计划\n\n1. 读取上传器代码\n   并找出重试点。\n2. 添加指数退避的重试循环\n3. 编写文档\n",
			[]string{"读取上传器代码\n并找出重试点。", "添加指数退避的重试循环", "编写文档"},
		},
		{
			"an item whose first line is blank",
			"# P\n\n1.\n   a\n2. b\n",
			[]string{"a", "b"},
		},
		{
			"empty items are left out",
			"# P\n\n1. a\n2.\n3. c\n",
			[]string{"a", "c"},
		},
		{
			"indented code as the first content",
			"# P\n\n1.      code here\n2. b\n",
			[]string{"     code here", "b"},
		},
		{
			"tabs after the marker",
			"# P\n\n1.\ta\n\tmore\n2. b\n",
			[]string{"a\nmore", "b"},
		},
		{
			"CRLF line ends",
			"# P\r\n\r\n1. a\r\n   b\r\n2. c\r\n",
			[]string{"a\nb", "c"},
		},
		{
			"a list that starts at another number",
			"# P\n\n3. a\n4. b\n",
			[]string{"a", "b"},
		},
		{"only the first list", "# P\n1. a\n\nText between.\n\n1. x\n", []string{"a"}},
		{"bullets before the list are not steps", "# P\n- x\n- y\n\n1. a\n", []string{"a"}},
		{"an ordered list inside bullets is not top-level", "# P\n- x\n  1. no\n\n1. a\n", []string{"a"}},
		{"lists in code fences are not steps", "# P\n```\n1. no\n```\n1. a\n", []string{"a"}},
		{"lists in quotes are not steps", "# P\n> 1. no\n\n1. a\n", []string{"a"}},
		{"no list", "# P\n\nJust text.\n", nil},
		{"numbers without a space are no items", "# P\n1.5 million\n2.a\n", nil},
		{"deeply indented numbers are no items", "# P\n    1. code\n", nil},
		{"a link reference definition is text", "# P\n\n1. [x]: /url\n2. b\n", []string{"[x]: /url", "b"}},
		{
			"a setext heading after the list ends it",
			"# P\n\n1. a\n\nRisks\n=====\n",
			[]string{"a"},
		},
		{
			"trailing text after a blank line is part of the last item when indented",
			"# P\n\n1. a\n\n   Still a.\n\nNot a.\n",
			[]string{"a\n\nStill a."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, more := planmd.Steps(tt.give, 100)
			if more {
				t.Fatal("reported more")
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
			if n := referenceCount(tt.give); n != len(got) {
				t.Fatalf("%d steps, goldmark's walk counts %d", len(got), n)
			}
		})
	}
}

func TestStepsLimit(t *testing.T) {
	plan := strings.Repeat("1. x\n", 5)
	for _, tt := range []struct {
		limit    int
		wantN    int
		wantMore bool
	}{{5, 5, false}, {4, 4, true}, {0, 0, true}, {9, 5, false}} {
		got, more := planmd.Steps(plan, tt.limit)
		if len(got) != tt.wantN || more != tt.wantMore {
			t.Errorf("limit %d: %d steps, more %v; want %d, %v", tt.limit, len(got), more, tt.wantN, tt.wantMore)
		}
	}
}

func TestTitle(t *testing.T) {
	tests := []struct{ give, want string }{
		{"# Add retries\n\n1. a\n", "Add retries"},
		{"  # Spaced  \n", "Spaced"},
		{"# Closed #\n", "Closed"},
		{"## Sub first\n# Main\n", "Sub first"},
		{"Intro\n\n### Third\n", "Third"},
		{"# #\n## Real\n", "Real"},
		{"#\n# \n#Title\n", ""},
		{"Underlined\n==========\n", "Underlined"},
		{"Two\nlines\n---\n", "Two lines"},
		{"```\n# not\n```\n## Yes\n", "Yes"},
		{"    # code\n", ""},
		{"> # quoted\n", ""},
		{"1. # in a step\n", ""},
		{"# Fix `parse` for **CJK**\n", "Fix `parse` for **CJK**"},
		{"# 计划：重试\n", "计划：重试"},
		{"# Title\r\n\r\nbody", "Title"},
		{"", ""},
		{"text", ""},
	}
	for _, tt := range tests {
		if got := planmd.Title(tt.give); got != tt.want {
			t.Errorf("Title(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

func TestHasTitle(t *testing.T) {
	tests := []struct {
		give string
		want bool
	}{
		{"# Add retries\n\n1. a\n", true},
		{"\n\n  # Spaced  \n", true},
		{"#\tTabbed", true},
		{"# #", true},
		{"# Title\r\n\r\nbody", true},
		{"", false},
		{"## Sub first\n# Main\n", false},
		{"#Title", false},
		{"#", false},
		{"# \nTitle", false},
		{"Intro\n# Title", false},
		{"Underlined\n==========\n", false},
		{"####### Seven", false},
		{"> # quoted", false},
		{"#\u00a0Title", false},
		{"#\r0", false},
	}
	for _, tt := range tests {
		if got := planmd.HasTitle(tt.give); got != tt.want {
			t.Errorf("HasTitle(%q) = %v, want %v", tt.give, got, tt.want)
		}
	}
}

// referenceCount counts the steps of plan with goldmark's own parser and
// AST walk: the items with text of the first ordered list that is a child
// of the document.
func referenceCount(plan string) int {
	p := parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...))
	doc := p.Parse(text.NewReader([]byte(plan)))
	n := 0
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		l, ok := c.(*ast.List)
		if !ok || !l.IsOrdered() {
			continue
		}
		_ = ast.Walk(l, func(m ast.Node, entering bool) (ast.WalkStatus, error) {
			if m == l {
				return ast.WalkContinue, nil
			}
			if entering && m.Kind() == ast.KindListItem && hasText(m, plan) {
				n++
			}
			return ast.WalkSkipChildren, nil
		})
		break
	}
	return n
}

// hasText reports whether item n holds more than blanks: a block other
// than a paragraph (a list, a rule, a fence, even empty), or a paragraph
// with a character other than Unicode white space.
func hasText(n ast.Node, plan string) bool {
	found := false
	_ = ast.Walk(n, func(m ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || m.Type() != ast.TypeBlock {
			return ast.WalkSkipChildren, nil
		}
		switch m.Kind() {
		case ast.KindListItem:
			if m == n {
				return ast.WalkContinue, nil
			}
		case ast.KindParagraph, ast.KindTextBlock:
		default:
			found = true
			return ast.WalkStop, nil
		}
		lines := m.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			found = found || strings.TrimSpace(string(seg.Value([]byte(plan)))) != ""
		}
		return ast.WalkContinue, nil
	})
	return found
}

// FuzzSteps: the number of steps is the number goldmark's own walk counts,
// every step has text and no step holds a line break other than "\n".
func FuzzSteps(f *testing.F) {
	for _, s := range []string{
		"# P\n1. a\n2. b\n", "```\n1. x\n```\n1) y\n", "1. Build\n   1. compile\n   2. link\n2. Test\n",
		"1. a\n\n   ```go\n   x\n   ```\n2. b\n3. c\n", "1) a\n\n1. b\n", "1.\n\n2. b\n", "1.\t\ta\n\t\tb\n",
		"1. a\nlazy\n- b\n", "1. <div>\n2. x\n", "0. a\n   > q\n1. b\n", "1. a\r\n2. b\r\n", "1. x\n\nT\n==\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, plan string) {
		steps, more := planmd.Steps(plan, 100)
		want := referenceCount(plan)
		if more && want <= 100 || !more && len(steps) != want {
			t.Fatalf("%d steps (more %v), goldmark counts %d", len(steps), more, want)
		}
		for _, s := range steps {
			if strings.TrimSpace(s) == "" || strings.Contains(s, "\r\n") {
				t.Fatalf("step %q", s)
			}
		}
		_ = planmd.Title(plan)
	})
}
