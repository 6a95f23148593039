package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
	"go.uber.org/dig"
)

// validate is "planhost validate": load the deployment and build the whole
// host graph without running a session.
func (p *program) validate(args []string) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	config := fs.String("config", "", flagConfigHelp)
	if code, done := p.parseFlags(fs, usageValidate, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return p.extraArgs("validate", fs.Args())
	}
	if *config == "" {
		fmt.Fprintf(p.stderr, errNeedConfig, "validate")
		return exitUsage
	}
	dep, err := wiring.LoadDeployment(*config)
	if err != nil {
		return p.configError("validate", err)
	}
	tools, closeTools, err := servingTools()
	if err != nil {
		return p.fail("validate", err)
	}
	defer closeTools()
	app, parts := wiring.New(wiring.Config{Store: store.NewMemory(), Model: unusedModel{}, Deployment: dep.Deployment, Tools: tools})
	if err := app.Err(); err != nil {
		return p.configError("validate", fmt.Errorf(lineGraphError, *config, graphCause(err)))
	}
	// Starting registers every plugin with the host (names, sections,
	// tools, commands), which catches conflicts the graph cannot show.
	ctx, cancel := context.WithTimeout(context.Background(), validateTimeout)
	defer cancel()
	if err := app.Start(ctx); err != nil {
		return p.configError("validate", fmt.Errorf(lineGraphError, *config, err))
	}
	if problems := servingProblems(*config, dep.Deployment, parts.Runtime); len(problems) > 0 {
		for _, line := range problems {
			fmt.Fprintf(p.stderr, errPrefix, "validate", line)
		}
		_ = app.Stop(ctx)
		return exitUsage
	}
	if err := app.Stop(ctx); err != nil {
		return p.fail("validate", err)
	}
	plugins := "none"
	if len(dep.Plugins) > 0 {
		plugins = strings.Join(dep.Plugins, ", ")
	}
	fmt.Fprintf(p.stdout, lineValid+"\n", *config, plugins)
	return exitOK
}

// validateTimeout bounds starting and stopping the host.
const validateTimeout = 10 * time.Second

// graphCause reduces an fx graph failure to the error that caused it: fx
// wraps it in the chain of constructors that needed the failed value, which
// reads as a page of Go function names; the cause alone ("plan-mode:
// invalid config: ...", "missing type: host.Tools") says what to fix.
func graphCause(err error) error { return dig.RootCause(err) }

// unusedModel is the model of the graph validate builds: validate starts no
// session, so it is never asked.
type unusedModel struct{}

func (unusedModel) Generate(context.Context, refhost.Request) (refhost.Response, error) {
	return refhost.Response{}, errValidateOnly
}

var _ refhost.Model = unusedModel{}
