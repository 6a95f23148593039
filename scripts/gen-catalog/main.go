// Command gen-catalog writes the plugin's generated API catalog into its doc
// pages and checks that the docs are current.
//
// Usage:
//
//	go run ./scripts/gen-catalog          # write the catalog region of every page
//	go run ./scripts/gen-catalog -check   # write nothing; exit 1 with a diff when stale
//	go run ./scripts/gen-catalog -record  # write, then record both sides of every
//	                                      # translation pair as reviewed
//
// The catalog is extracted from the package in -pkg (see package catalog),
// followed by the surface of each companion plugin package in -companions
// (catalog.LoadCompanion: found by naming convention), and written between
// the marker lines of each page in -pages; the region is the same bytes on
// every page. Every page pair NAME.md / NAME.zh.md in the
// pages' directories has a translation record NAME.i18n.yaml holding a digest
// of each side's hand-written text, so that a change to one side without the
// other fails the check.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

// The flags' defaults: this repository's layout.
const (
	defaultPkg   = "."
	defaultPages = "docs/plan-mode.md,docs/plan-mode.zh.md"
	// defaultCompanions are the companion plugins' package directories,
	// whose surface follows the plugin's in the same region.
	defaultCompanions = "planfile,planentry,planask,planreview,plangate,plansteps,todo"
	// baseCommand is how this repository runs the generator.
	baseCommand = "go run ./scripts/gen-catalog"
)

func main() {
	pkg := flag.String("pkg", defaultPkg, "directory of the plugin `package`")
	pages := flag.String("pages", defaultPages, "comma-separated doc `pages` that carry the generated region")
	companions := flag.String("companions", defaultCompanions, "comma-separated `directories` of companion plugin packages")
	check := flag.Bool("check", false, "write nothing; exit 1 with a diff when the docs are stale")
	record := flag.Bool("record", false, "after writing, record every translation pair as reviewed")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "gen-catalog: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}
	if *check && *record {
		fmt.Fprintln(os.Stderr, "gen-catalog: -check and -record exclude each other: -check writes nothing")
		os.Exit(2)
	}
	g := &generator{
		root:       ".",
		pkg:        *pkg,
		pages:      splitList(*pages),
		companions: splitList(*companions),
		record:     *record,
		command:    fixCommand(*pkg, *pages, *companions),
		out:        os.Stdout,
	}
	upToDate, err := g.run(!*check)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen-catalog: %v\n", err)
		os.Exit(1)
	}
	if *check {
		if !upToDate {
			os.Exit(1)
		}
		fmt.Println(msgUpToDate)
	}
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// fixCommand returns the command that regenerates the docs with the flags
// that differ from the defaults.
func fixCommand(pkg, pages, companions string) string {
	cmd := baseCommand
	if pkg != defaultPkg {
		cmd += " -pkg " + shellQuote(pkg)
	}
	if pages != defaultPages {
		cmd += " -pages " + shellQuote(pages)
	}
	if companions != defaultCompanions {
		cmd += " -companions " + shellQuote(companions)
	}
	return cmd
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// path characters.
func shellQuote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./,:=+@", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
