package main

import (
	"flag"
	"fmt"
	"path/filepath"

	"github.com/dshgo/planmode/cmd/planhost/internal/acp"
	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/cmd/planhost/pgstore"
)

// version is the planhost version the ACP agent reports.
var version = "devel"

// acp is "planhost acp": an Agent Client Protocol agent on stdin/stdout.
func (p *program) acp(args []string) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	env := openaimodel.FromEnv(p.getenv)
	stateDir, stateErr := wiring.StateDir(p.getenv)
	shownState := stateDir
	if stateErr != nil {
		shownState = filepath.Join("$HOME", ".local", "state")
	}
	o := acp.Options{Version: version, Getenv: p.getenv, Interrupt: p.notifyInterrupt, Stdin: p.stdin, Stdout: p.stdout, Stderr: p.stderr}
	fs.StringVar(&o.Config, "config", "", flagConfigHelp)
	fs.StringVar(&o.Sessions, "sessions", "", fmt.Sprintf(flagSessionsHelp, filepath.Join(shownState, wiring.AppDir, wiring.SessionsDir)))
	fs.StringVar(&o.Store, "store", wiring.StoreFile, flagStoreHelp)
	fs.DurationVar(&o.Lease, "lease", pgstore.DefaultLeaseExpiry, flagLeaseHelp)
	fs.StringVar(&o.Documents, "documents", "", fmt.Sprintf(flagDocumentsHelp, filepath.Join(shownState, wiring.AppDir, wiring.DocumentsDir)))
	fs.StringVar(&o.Model, "model", wiring.ModelOpenAI, flagModelHelp)
	fs.StringVar(&o.LogFile, "log", "", flagLogHelp)
	fs.StringVar(&o.LogLevel, "log-level", "warn", flagLogLevelHelp)
	lang := fs.String("lang", "", flagLangHelp)
	finishOpenAI := addOpenAIFlags(fs, &o.OpenAI, env)
	finishPlan := addPlanModelFlags(fs, &o.Plan, p.getenv)
	if code, done := p.parseFlags(fs, usageACP, args); done {
		return code
	}
	finishOpenAI()
	finishPlan()
	if fs.NArg() > 0 {
		fmt.Fprintf(p.stderr, errExtraArgs, "acp", fs.Args())
		return exitUsage
	}
	o.Catalog = p.catalog(*lang)
	switch usage, err := acp.Run(o); {
	case usage:
		return p.usageError("acp", err)
	case err != nil:
		return p.fail("acp", err)
	}
	return exitOK
}
