package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/dshgo/planmode/cmd/planhost/acp"
	"github.com/dshgo/planmode/cmd/planhost/internal/demo"
	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
)

// version is the planhost version the ACP agent reports.
var version = "devel"

// acpFlags are the flags of "planhost acp".
type acpFlags struct {
	config, sessions, store, model, logFile, logLevel string
	documents                                         string
	openai                                            openaimodel.Config
	plan                                              wiring.PlanModel
}

// acp is "planhost acp": an Agent Client Protocol agent on stdin/stdout.
func (p *program) acp(args []string) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	env := openaimodel.FromEnv(p.getenv)
	stateDir, stateErr := wiring.StateDir(p.getenv)
	shownState := stateDir
	if stateErr != nil {
		shownState = filepath.Join("$HOME", ".local", "state")
	}
	var f acpFlags
	fs.StringVar(&f.config, "config", "", flagConfigHelp)
	fs.StringVar(&f.sessions, "sessions", "", fmt.Sprintf(flagSessionsHelp, filepath.Join(shownState, wiring.AppDir, wiring.SessionsDir)))
	fs.StringVar(&f.store, "store", wiring.StoreFile, flagStoreHelp)
	fs.DurationVar(&p.leaseExpiry, "lease", pgstore.DefaultLeaseExpiry, flagLeaseHelp)
	fs.StringVar(&f.documents, "documents", "", fmt.Sprintf(flagDocumentsHelp, filepath.Join(shownState, wiring.AppDir, wiring.DocumentsDir)))
	fs.StringVar(&f.model, "model", wiring.ModelOpenAI, flagModelHelp)
	fs.StringVar(&f.logFile, "log", "", flagLogHelp)
	fs.StringVar(&f.logLevel, "log-level", "warn", flagLogLevelHelp)
	finishOpenAI := addOpenAIFlags(fs, &f.openai, env)
	finishPlan := addPlanModelFlags(fs, &f.plan, p.getenv)
	if code, done := p.parseFlags(fs, usageACP, args); done {
		return code
	}
	finishOpenAI()
	finishPlan()
	if fs.NArg() > 0 {
		fmt.Fprintf(p.stderr, errExtraArgs, "acp", fs.Args())
		return exitUsage
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return p.usageError("acp", fmt.Errorf("-log-level: %w", err))
	}
	logOut := p.stderr
	if f.logFile != "" {
		lf, err := os.OpenFile(f.logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return p.usageError("acp", fmt.Errorf("-log: %w", err))
		}
		defer lf.Close()
		logOut = lf
	}
	logger := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))

	var pd wiring.Deployment
	var err error
	if f.config != "" {
		pd, err = wiring.LoadDeployment(f.config)
	} else {
		pd, err = wiring.ParseDeployment(acpDefaultDeployID, demo.Deployment())
	}
	dep := pd.Deployment
	if err != nil {
		fmt.Fprintln(p.stderr, err)
		return exitUsage
	}
	model, err := wiring.Model(f.model, f.openai, f.plan)
	if err != nil {
		return p.usageError("acp", err)
	}
	if f.sessions == "" {
		if stateErr != nil {
			return p.usageError("acp", stateErr)
		}
		f.sessions = filepath.Join(stateDir, wiring.AppDir, wiring.SessionsDir)
	}
	// The tools never touch where planhost keeps its state, whatever cwd
	// the editor sends.
	forbidden := []string{f.sessions}
	if stateErr == nil {
		forbidden = append(forbidden, filepath.Join(stateDir, wiring.AppDir))
	}
	// Nor the plans under review: a session whose cwd lies inside the plan
	// directory is refused, and the tools of one that holds it never
	// reach it.
	if pd.PlanDir != "" {
		forbidden = append(forbidden, pd.PlanDir)
	}
	if forbidden, err = wiring.SettleDocuments(f.store, &f.documents, "", stateDir, stateErr, forbidden); err != nil {
		return p.usageError("acp", err)
	}
	// Each repair the file store makes on opening a session is logged.
	sessions, usage, err := wiring.OpenStore(f.store, f.sessions, p.getenv, p.leaseExpiry, store.WithLogger(wiring.RepairLogger(logOut, "acp", "", nil)))
	if usage {
		return p.usageError("acp", err)
	} else if err != nil {
		return p.fail("acp", err)
	}
	defer sessions.Close()
	// The todo lists live with the sessions: in the database with a
	// PostgreSQL store.
	docs, err := sessions.Documents(f.documents)
	if err != nil {
		return p.fail("acp", err)
	}
	workspaces := acp.NewWorkspaces(workspace.Limits{}, workspace.WithForbidden(forbidden...))
	defer workspaces.Close()

	// The turn-lease notices of sessions other processes share reach the
	// client showing the session.
	notices := &acp.LeaseNotices{}
	lease := &wiring.Lease{}
	lease.SetFor(func(a *refhost.Agent, h host.LeaseHolder) { notices.Busy(a, h, 0) }, notices.LeaseLost)
	var executeModel string
	if wiring.Routed(model) {
		executeModel = f.openai.Model
	}
	app, parts := wiring.New(wiring.Config{Store: sessions, Model: model, Deployment: dep, Tools: workspaces.Tools(), Logger: logger,
		Documents: docs, Lease: lease, ExecuteModel: executeModel})
	if err := app.Err(); err != nil {
		return p.usageError("acp", err)
	}
	if err := wiring.BindRouter(model, parts); err != nil {
		return p.usageError("acp", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := app.Start(ctx); err != nil {
		return p.fail("acp", err)
	}
	defer wiring.Stop(app)
	// Ctrl-C ends the connection: running turns are cancelled and logged
	// as such before the program exits.
	sigs, stopSigs := p.notifyInterrupt()
	defer stopSigs()
	go func() {
		select {
		case <-sigs:
			logger.Info("planhost acp: interrupted; stopping")
			cancel()
		case <-ctx.Done():
		}
	}()
	err = acp.Serve(ctx, acp.Config{
		Runtime:    parts.Runtime,
		Plan:       parts.Plan,
		Store:      sessions,
		Workspaces: workspaces,
		Logger:     logger,
		Version:    version,
		ToolKinds:  acp.CompanionToolKinds(),
		Plans:      acp.CompanionPlans{},
		Leases:     notices,
	}, p.stdin, p.stdout)
	if err != nil {
		return p.fail("acp", err)
	}
	return exitOK
}
