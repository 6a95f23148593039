package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/dshgo/planmode/cmd/planhost/internal/demo"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/internal/present"
)

// demoDirPattern names the demo's temporary directory.
const demoDirPattern = "planhost-demo-"

// demo plays a scripted scene and prints its transcript.
func (p *program) demo(args []string) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	keep := fs.Bool("keep", false, flagKeepHelp)
	scene := fs.String("scene", demo.Scenes[0], flagSceneHelp)
	lang := fs.String("lang", "", flagLangHelp)
	verbose := fs.Bool("verbose", false, flagVerboseHelp)
	if code, done := p.parseFlags(fs, usageDemo, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return p.extraArgs("demo", fs.Args())
	}
	md, err := mdview.New(mdview.StyleNoTTY, markdownWidth)
	if err != nil {
		return p.fail("demo", err)
	}
	dir, err := os.MkdirTemp(p.tempDir, demoDirPattern)
	if err != nil {
		return p.fail("demo", err)
	}
	cat := p.catalog(*lang)
	out := &present.Plain{W: p.stdout}
	out.Line(fmt.Sprintf(cat.Demo.Start, *scene))
	out.Line("")
	files, err := demo.Play(context.Background(), demo.Config{Scene: *scene, Dir: dir, Out: p.stdout, Log: p.stderr,
		Catalog: cat, Verbose: *verbose, Markdown: md.Render})
	code := exitOK
	switch {
	case errors.Is(err, demo.ErrUnknownScene):
		code = p.usageError("demo", err)
	case err != nil:
		code = p.fail("demo", fmt.Errorf("%s: %w", cat.Demo.Failed, err))
	}
	out.Line("")
	for _, f := range files {
		out.Line(fmt.Sprintf(cat.Session.SessionFile, f))
	}
	if *keep {
		out.Line(cat.Demo.Kept)
		return code
	}
	if err := os.RemoveAll(dir); err != nil {
		return p.fail("demo", err)
	}
	out.Line(cat.Demo.Removed)
	return code
}
