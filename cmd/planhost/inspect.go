package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/dshgo/planmode/cmd/planhost/internal/inspect"
	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
)

// inspectCmd is "planhost inspect": print a session's transcript with its
// plan-mode lines and the state it ends in, as text or JSON, and
// optionally write its HTML page.
func (p *program) inspect(args []string) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, flagJSONHelp)
	htmlFile := fs.String("html", "", flagHTMLHelp)
	storeValue := fs.String("store", wiring.StoreFile, flagSourceStoreHelp)
	lang := fs.String("lang", "", flagLangHelp)
	if code, done := p.parseFlags(fs, usageInspect, args); done {
		return code
	}
	switch fs.NArg() {
	case 0:
		fmt.Fprint(p.stderr, errNeedFile)
		return exitUsage
	case 1:
	default:
		return p.extraArgs("inspect", fs.Args()[1:])
	}
	id, events, usage, err := transferLoad(p, "inspect", *storeValue, fs.Arg(0))
	switch {
	case usage:
		return p.usageError("inspect", err)
	case err != nil:
		return p.fail("inspect", err)
	}
	cat := p.catalog(*lang)
	if *htmlFile != "" {
		err := inspect.WriteHTML(*htmlFile, id, events, cat)
		switch {
		case errors.Is(err, inspect.ErrNotRegular):
			return p.usageError("inspect", err)
		case err != nil:
			return p.fail("inspect", err)
		}
	}
	ins := inspect.Inspect(id, events, cat)
	if *asJSON {
		if err := inspect.WriteJSON(p.stdout, ins); err != nil {
			return p.fail("inspect", err)
		}
		return exitOK
	}
	inspect.WriteText(p.stdout, ins, cat)
	return exitOK
}
