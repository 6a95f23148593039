package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/dshgo/planmode/catalog"
)

// generator holds one invocation's settings. Paths are relative to root and
// are printed as given, so the output never holds an absolute path.
type generator struct {
	// root is the directory pkg and pages are relative to.
	root string
	// pkg is the plugin package's directory.
	pkg string
	// pages are the doc pages that carry the generated region.
	pages []string
	// companions are the companion plugins' package directories; their
	// surface follows the plugin's in the region.
	companions []string
	// record, in write mode, records every translation pair as reviewed.
	record bool
	// command is what the user runs to regenerate the docs.
	command string
	// out receives the report: diffs, problems and what was written.
	out io.Writer
}

// run regenerates the catalog and compares it, and the translation records,
// with the docs. With write it writes the pages (and, with g.record, the
// records) and reports whether they were already current; translation
// problems that writing cannot fix are then an error. Without write it
// writes nothing: it prints a diff of every stale page and every
// translation problem, with the command that fixes them, and reports
// whether everything is current.
func (g *generator) run(write bool) (upToDate bool, err error) {
	if len(g.pages) == 0 {
		return false, errors.New("no pages to write: -pages is empty")
	}
	c, err := catalog.Load(g.path(g.pkg))
	if err != nil {
		return false, err
	}
	content := c.Markdown()
	for _, dir := range g.companions {
		comp, err := catalog.LoadCompanion(g.path(dir))
		if err != nil {
			return false, err
		}
		content = append(content, comp.Markdown()...)
	}

	// Every page is read and checked before any is written, so a page with
	// broken markers leaves all of them as they were.
	updates := make([]pageUpdate, len(g.pages))
	for i, page := range g.pages {
		if updates[i], err = g.inject(page, content); err != nil {
			return false, err
		}
	}
	regionsCurrent := true
	for _, u := range updates {
		current, err := g.writePage(u, write)
		if err != nil {
			return false, err
		}
		regionsCurrent = regionsCurrent && current
	}
	if !regionsCurrent && !write {
		fmt.Fprintf(g.out, msgFixRegions, g.command)
	}

	problems, recordsCurrent, err := g.checkPairs(write && g.record)
	if err != nil {
		return false, err
	}
	if len(problems) > 0 {
		if write {
			return false, fmt.Errorf("translation pairs:\n\t%s\n%s",
				strings.Join(problems, "\n\t"), strings.TrimSpace(fmt.Sprintf(msgFixPairs, g.command)))
		}
		for _, p := range problems {
			fmt.Fprintln(g.out, p)
		}
		fmt.Fprintln(g.out)
		fmt.Fprintf(g.out, msgFixPairs, g.command)
	}
	return regionsCurrent && recordsCurrent && len(problems) == 0, nil
}

// pageUpdate is a page as it is and as the generator would write it.
type pageUpdate struct {
	page         string
	old, updated []byte
}

// inject reads page and injects content into it.
func (g *generator) inject(page string, content []byte) (pageUpdate, error) {
	old, err := os.ReadFile(g.path(page))
	if err != nil {
		return pageUpdate{}, fmt.Errorf("page %s: %w", page, err)
	}
	updated, err := catalog.Inject(old, content)
	if err != nil {
		return pageUpdate{}, fmt.Errorf("page %s: %w", page, err)
	}
	return pageUpdate{page: page, old: old, updated: updated}, nil
}

// writePage reports whether the page was already current; when it was not,
// it writes the page (write) or prints a unified diff (check).
func (g *generator) writePage(u pageUpdate, write bool) (bool, error) {
	page, old, updated := u.page, u.old, u.updated
	if bytes.Equal(old, updated) {
		return true, nil
	}
	if write {
		if err := writeFile(g.path(page), updated); err != nil {
			return false, fmt.Errorf("page %s: %w", page, err)
		}
		fmt.Fprintf(g.out, msgUpdated, page)
		return false, nil
	}
	diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(string(old)),
		B:        difflib.SplitLines(string(updated)),
		FromFile: page + " (on disk)",
		ToFile:   page + " (generated)",
		Context:  3,
	})
	if err != nil {
		return false, fmt.Errorf("page %s: diff: %w", page, err)
	}
	fmt.Fprintf(g.out, msgStale, page)
	fmt.Fprint(g.out, diff)
	if !strings.HasSuffix(diff, "\n") {
		fmt.Fprintln(g.out)
	}
	fmt.Fprintln(g.out)
	return false, nil
}

// path resolves a path given on the command line: relative to g.root, or
// as it is when absolute.
func (g *generator) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(g.root, filepath.FromSlash(p))
}

// writeFile replaces path's content, keeping its permissions.
func writeFile(path string, b []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return os.WriteFile(path, b, mode)
}
