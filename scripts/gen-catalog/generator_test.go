package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/catalog"
)

// repoRoot is this repository's root, seen from the package directory.
const repoRoot = "../.."

// TestGenerated fails when the docs of this repository are stale: the
// catalog region of a page or a translation record.
func TestGenerated(t *testing.T) {
	var out bytes.Buffer
	g := &generator{
		root:       repoRoot,
		pkg:        defaultPkg,
		pages:      splitList(defaultPages),
		companions: splitList(defaultCompanions),
		command:    baseCommand,
		out:        &out,
	}
	upToDate, err := g.run(false)
	if err != nil {
		t.Fatal(err)
	}
	if !upToDate {
		t.Fatalf("the docs are stale:\n%s", &out)
	}
}

// The pages of a test repository built by newRepo.
const (
	pageEN = "docs/plan-mode.md"
	pageZH = "docs/plan-mode.zh.md"
)

// newRepo lays out a repository in a temporary directory: the catalog's
// fixture package in pkg/ and a page pair with markers in docs/.
func newRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(repoRoot, "catalog", "testdata", "fixture")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, root, "pkg/.keep", "")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, root, "pkg/"+e.Name(), string(b))
	}
	mustWrite(t, root, pageEN, "# Plan mode\n\nEnglish prose.\n\n## API catalog\n\n"+
		catalog.BeginMarker+"\n"+catalog.EndMarker+"\n")
	mustWrite(t, root, pageZH, "# 计划模式\n\n中文说明。\n\n## API 目录\n\n"+
		catalog.BeginMarker+"\n"+catalog.EndMarker+"\n")
	return root
}

func mustWrite(t *testing.T, root, name, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// edit replaces old with new in a file of the repository.
func edit(t *testing.T, root, name, old, new string) {
	t.Helper()
	s := mustRead(t, root, name)
	if !strings.Contains(s, old) {
		t.Fatalf("%s does not contain %q", name, old)
	}
	mustWrite(t, root, name, strings.Replace(s, old, new, 1))
}

// snapshot returns every file of the tree under root.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func newGenerator(root string, out *bytes.Buffer) *generator {
	pages := pageEN + "," + pageZH
	return &generator{
		root:    root,
		pkg:     "pkg",
		pages:   splitList(pages),
		command: fixCommand("pkg", pages, defaultCompanions),
		out:     out,
	}
}

// generated writes the catalog and records the pair, as a developer does
// after writing both sides.
func generated(t *testing.T) string {
	t.Helper()
	root := newRepo(t)
	if _, _, err := record(root); err != nil {
		t.Fatal(err)
	}
	return root
}

// record runs the generator in write mode with -record and returns its
// verdict and report.
func record(root string) (upToDate bool, report string, err error) {
	var out bytes.Buffer
	g := newGenerator(root, &out)
	g.record = true
	upToDate, err = g.run(true)
	return upToDate, out.String(), err
}

// check runs the generator in check mode and returns its verdict and report.
func check(t *testing.T, root string) (bool, string) {
	t.Helper()
	var out bytes.Buffer
	upToDate, err := newGenerator(root, &out).run(false)
	if err != nil {
		t.Fatal(err)
	}
	return upToDate, out.String()
}

func TestWriteThenCheckIsUpToDate(t *testing.T) {
	root := generated(t)
	upToDate, out := check(t, root)
	if !upToDate || out != "" {
		t.Errorf("check after writing: upToDate=%v, report:\n%s", upToDate, out)
	}
}

func TestWriteReportsWhatItWrote(t *testing.T) {
	upToDate, out, err := record(newRepo(t))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(msgUpdated, pageEN) + fmt.Sprintf(msgUpdated, pageZH) + fmt.Sprintf(msgRecorded, "docs/plan-mode.i18n.yaml")
	if upToDate || out != want {
		t.Errorf("first write: upToDate=%v, report %q, want false and %q", upToDate, out, want)
	}
}

func TestWritingTwiceChangesNothing(t *testing.T) {
	root := generated(t)
	before := snapshot(t, root)
	upToDate, out, err := record(root)
	if err != nil {
		t.Fatal(err)
	}
	if !upToDate || out != "" {
		t.Errorf("second write: upToDate=%v, report:\n%s", upToDate, out)
	}
	if after := snapshot(t, root); !maps.Equal(before, after) {
		t.Error("the second write changed files")
	}
}

func TestRegionIsIdenticalOnBothSides(t *testing.T) {
	root := generated(t)
	en, err := catalog.Current([]byte(mustRead(t, root, pageEN)))
	if err != nil {
		t.Fatal(err)
	}
	zh, err := catalog.Current([]byte(mustRead(t, root, pageZH)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(en, zh) {
		t.Errorf("regions differ:\n%s\n---\n%s", en, zh)
	}
	if !bytes.Contains(en, []byte("func (c *Controller) Get(agent host.Agent) State")) {
		t.Errorf("the region lacks the controller's Get:\n%s", en)
	}
}

func TestCheckFailsWithADiffWhenAMethodDocChanges(t *testing.T) {
	root := generated(t)
	edit(t, root, "pkg/plugin.go", "// Get returns the logged state", "// Get reports the logged state")
	before := snapshot(t, root)
	upToDate, out := check(t, root)
	if upToDate {
		t.Fatal("check passed after a doc comment changed")
	}
	for _, want := range []string{
		fmt.Sprintf(msgStale, pageEN),
		fmt.Sprintf(msgStale, pageZH),
		"--- " + pageEN + " (on disk)\n+++ " + pageEN + " (generated)\n@@ ",
		"\n-// Get returns the logged state of agent's session and, only when one\n",
		"\n+// Get reports the logged state of agent's session and, only when one\n",
		fmt.Sprintf(msgFixRegions, "go run ./scripts/gen-catalog -pkg pkg"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if after := snapshot(t, root); !maps.Equal(before, after) {
		t.Error("check wrote files")
	}

	// Regenerating fixes it, and the translation record still holds: the
	// region is not hand-written text.
	var buf bytes.Buffer
	if _, err := newGenerator(root, &buf).run(true); err != nil {
		t.Fatal(err)
	}
	if upToDate, out := check(t, root); !upToDate {
		t.Errorf("check after regenerating failed:\n%s", out)
	}
}

func TestCheckFindsTranslationDrift(t *testing.T) {
	const record = "docs/plan-mode.i18n.yaml"
	tests := []struct {
		name   string
		change func(t *testing.T, root string)
		want   string
	}{
		{
			name:   "the English side changed alone",
			change: func(t *testing.T, root string) { edit(t, root, pageEN, "English prose.", "New English prose.") },
			want:   fmt.Sprintf(msgOneSide, pageEN, record, pageZH),
		},
		{
			name:   "the Chinese side changed alone",
			change: func(t *testing.T, root string) { edit(t, root, pageZH, "中文说明。", "新的中文说明。") },
			want:   fmt.Sprintf(msgOneSide, pageZH, record, pageEN),
		},
		{
			name: "both sides changed",
			change: func(t *testing.T, root string) {
				edit(t, root, pageEN, "English prose.", "New English prose.")
				edit(t, root, pageZH, "中文说明。", "新的中文说明。")
			},
			want: fmt.Sprintf(msgBothSides, pageEN, pageZH, record),
		},
		{
			name: "the record is missing",
			change: func(t *testing.T, root string) {
				if err := os.Remove(filepath.Join(root, record)); err != nil {
					t.Fatal(err)
				}
			},
			want: fmt.Sprintf(msgNoRecord, record, pageEN, pageZH),
		},
		{
			name:   "the record has an unknown key",
			change: func(t *testing.T, root string) { edit(t, root, record, "en:", "reviewer: me\nen:") },
			want:   record + ": malformed record: yaml: unmarshal errors:\n  line",
		},
		{
			name:   "the record lacks a digest",
			change: func(t *testing.T, root string) { edit(t, root, record, "  digest: sha256:", "  checksum: sha256:") },
			want:   record + ": malformed record",
		},
		{
			name:   "the record names other pages",
			change: func(t *testing.T, root string) { edit(t, root, record, "file: plan-mode.md", "file: old.md") },
			want:   fmt.Sprintf(msgRecordNames, record, "old.md, plan-mode.zh.md", "plan-mode.md, plan-mode.zh.md"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := generated(t)
			tt.change(t, root)
			upToDate, out := check(t, root)
			if upToDate {
				t.Fatal("check passed")
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("report lacks %q:\n%s", tt.want, out)
			}
			if want := fmt.Sprintf(msgFixPairs, "go run ./scripts/gen-catalog -pkg pkg"); !strings.Contains(out, want) {
				t.Errorf("report lacks the fixing command %q:\n%s", want, out)
			}

			// Writing without -record does not paper over it ...
			var buf bytes.Buffer
			if _, err := newGenerator(root, &buf).run(true); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("write without -record: error %v, want one containing %q", err, tt.want)
			}
			// ... recording does.
			g := newGenerator(root, &buf)
			g.record = true
			if _, err := g.run(true); err != nil {
				t.Fatal(err)
			}
			if upToDate, out := check(t, root); !upToDate {
				t.Errorf("check after -record failed:\n%s", out)
			}
		})
	}
}

func TestRecordRefusesPagesWithDifferentHeadings(t *testing.T) {
	root := generated(t)
	edit(t, root, pageEN, "English prose.\n", "English prose.\n\n### Details\n")
	recordBefore := mustRead(t, root, "docs/plan-mode.i18n.yaml")
	_, _, err := record(root)
	want := fmt.Sprintf(msgHeadingLevel, 2, 3, pageEN, 5, "Details", 2, pageZH, 5, "API 目录")
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("-record error = %v, want one containing %q", err, want)
	}
	if got := mustRead(t, root, "docs/plan-mode.i18n.yaml"); got != recordBefore {
		t.Error("-record wrote the record of a pair whose headings differ")
	}
}

func TestCheckFindsPagesWithoutTranslation(t *testing.T) {
	root := generated(t)
	mustWrite(t, root, "docs/host.md", "# Host\n")
	mustWrite(t, root, "docs/reliability.zh.md", "# 可靠性\n")
	mustWrite(t, root, "docs/gone.i18n.yaml", "en: {}\n")
	upToDate, out := check(t, root)
	if upToDate {
		t.Fatal("check passed")
	}
	for _, want := range []string{
		fmt.Sprintf(msgNoTranslation, "docs/host.md", "docs/host.zh.md"),
		fmt.Sprintf(msgNoTranslation, "docs/reliability.zh.md", "docs/reliability.md"),
		fmt.Sprintf(msgOrphanRecord, "docs/gone.i18n.yaml", "docs/gone.md", "docs/gone.zh.md"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestANewPairCanBeRecorded(t *testing.T) {
	root := generated(t)
	mustWrite(t, root, "docs/performance.md", "# Performance\n\n## Numbers\n")
	mustWrite(t, root, "docs/performance.zh.md", "# 性能\n\n## 数据\n")
	if upToDate, out := check(t, root); upToDate || !strings.Contains(out, "docs/performance.i18n.yaml: no translation record") {
		t.Fatalf("check of an unrecorded pair: upToDate=%v, report:\n%s", upToDate, out)
	}
	_, got, err := record(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(msgRecorded, "docs/performance.i18n.yaml"); got != want {
		t.Errorf("-record reported %q, want %q", got, want)
	}
	if upToDate, out := check(t, root); !upToDate {
		t.Errorf("check after -record failed:\n%s", out)
	}
}

func TestRunErrorsNameTheCause(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, root string)
		want   error
		text   string
	}{
		{
			name:   "a page without its end marker",
			change: func(t *testing.T, root string) { edit(t, root, pageZH, catalog.EndMarker+"\n", "") },
			want:   catalog.ErrMarkerMissing,
			text:   "page " + pageZH + ": no end marker line",
		},
		{
			name: "a page with the markers swapped",
			change: func(t *testing.T, root string) {
				mustWrite(t, root, pageEN, "# Plan mode\n\n"+catalog.EndMarker+"\n"+catalog.BeginMarker+"\n")
			},
			want: catalog.ErrMarkersInverted,
			text: "page " + pageEN + ": end marker on line 3, begin marker on line 4",
		},
		{
			name: "a missing declaration",
			change: func(t *testing.T, root string) {
				if err := os.Remove(filepath.Join(root, "pkg", "command_plan.go")); err != nil {
					t.Fatal(err)
				}
			},
			want: catalog.ErrMissing,
			text: "string constant CommandName",
		},
		{
			name: "a missing page",
			change: func(t *testing.T, root string) {
				if err := os.Remove(filepath.Join(root, filepath.FromSlash(pageZH))); err != nil {
					t.Fatal(err)
				}
			},
			want: fs.ErrNotExist,
			text: "page " + pageZH,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := generated(t)
			tt.change(t, root)
			for _, write := range []bool{false, true} {
				var out bytes.Buffer
				_, err := newGenerator(root, &out).run(write)
				if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
					t.Errorf("run(%v) error = %v, want %v containing %q", write, err, tt.want, tt.text)
				}
			}
		})
	}
}

func TestHeadingDifference(t *testing.T) {
	tests := []struct {
		name   string
		en, zh string
		want   string
	}{
		{"same levels, other words", "# A\n## B\n", "# 甲\n## 乙\n", ""},
		{"a level differs", "# A\n## B\n", "# 甲\n### 乙\n",
			fmt.Sprintf(msgHeadings, "en.md", "zh.md", fmt.Sprintf(msgHeadingLevel, 2, 2, "en.md", 2, "B", 3, "zh.md", 2, "乙"))},
		{"a heading is missing", "# A\n## B\n", "# 甲\n",
			fmt.Sprintf(msgHeadings, "en.md", "zh.md", fmt.Sprintf(msgHeadingCount, "en.md", 2, "zh.md", 1))},
		{"headings in code fences do not count", "# A\n```\n# x\n```\n", "# 甲\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := headingDifference("en.md", []byte(tt.en), "zh.md", []byte(tt.zh)); got != tt.want {
				t.Errorf("headingDifference = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFixCommand(t *testing.T) {
	tests := []struct {
		name                   string
		pkg, pages, companions string
		want                   string
	}{
		{"defaults", defaultPkg, defaultPages, defaultCompanions, "go run ./scripts/gen-catalog"},
		{"another package", "./plugin", defaultPages, defaultCompanions, "go run ./scripts/gen-catalog -pkg ./plugin"},
		{"other pages", defaultPkg, "a.md,a.zh.md", defaultCompanions, "go run ./scripts/gen-catalog -pages a.md,a.zh.md"},
		{"a path with a space", "my plugin", defaultPages, defaultCompanions, "go run ./scripts/gen-catalog -pkg 'my plugin'"},
		{"a path with a quote", "it's", defaultPages, defaultCompanions, `go run ./scripts/gen-catalog -pkg 'it'\''s'`},
		{"other companions", defaultPkg, defaultPages, "todo", "go run ./scripts/gen-catalog -companions todo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fixCommand(tt.pkg, tt.pages, tt.companions); got != tt.want {
				t.Errorf("fixCommand(%q, %q, %q) = %q, want %q", tt.pkg, tt.pages, tt.companions, got, tt.want)
			}
		})
	}
}

func TestSplitList(t *testing.T) {
	got := splitList(" a.md, ,b.md,")
	if len(got) != 2 || got[0] != "a.md" || got[1] != "b.md" {
		t.Errorf("splitList = %q, want [a.md b.md]", got)
	}
}

func TestAbsolutePathsAreUsedAsGiven(t *testing.T) {
	root := generated(t)
	var out bytes.Buffer
	g := newGenerator(t.TempDir(), &out) // a root the paths below do not depend on
	g.pkg = filepath.Join(root, "pkg")
	g.pages = []string{filepath.Join(root, filepath.FromSlash(pageEN)), filepath.Join(root, filepath.FromSlash(pageZH))}
	upToDate, err := g.run(false)
	if err != nil {
		t.Fatal(err)
	}
	if !upToDate {
		t.Errorf("check with absolute paths failed:\n%s", &out)
	}
}

func TestABrokenPageLeavesEveryPageAsItWas(t *testing.T) {
	root := generated(t)
	edit(t, root, "pkg/plugin.go", "// Get returns the logged state", "// Get reports the logged state")
	edit(t, root, pageZH, catalog.EndMarker+"\n", "")
	before := snapshot(t, root)
	var out bytes.Buffer
	if _, err := newGenerator(root, &out).run(true); !errors.Is(err, catalog.ErrMarkerMissing) {
		t.Fatalf("run(true) error = %v, want %v", err, catalog.ErrMarkerMissing)
	}
	if after := snapshot(t, root); !maps.Equal(before, after) {
		t.Errorf("a failed write changed files; report:\n%s", &out)
	}
}
