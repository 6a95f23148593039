package acp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/demo"
	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
)

// Options are what "planhost acp" takes from its flags and its process.
type Options struct {
	// Config is the deployment file; "" runs the demo's deployment.
	Config string
	// Sessions, Store and Documents are where sessions and documents
	// live, as the flags of the same names say; Lease is a PostgreSQL
	// store's turn-lease expiry.
	Sessions, Store, Documents string
	Lease                      time.Duration
	// Model, OpenAI and Plan choose the models, as for "planhost run".
	Model  string
	OpenAI openaimodel.Config
	Plan   wiring.PlanModel
	// Catalog holds the words the client shows.
	Catalog *present.Catalog
	// LogFile, when set, receives the diagnostics instead of Stderr;
	// LogLevel is the lowest level written.
	LogFile, LogLevel string
	// Version is the agent version the initialize response names.
	Version string
	// Getenv reads the environment.
	Getenv func(string) string
	// Interrupt delivers Ctrl-C on c until stop is called.
	Interrupt func() (c <-chan os.Signal, stop func())
	Stdin     io.Reader
	Stdout    io.Writer
	Stderr    io.Writer
}

// Run is "planhost acp" once its flags are parsed: it builds the host, the
// sessions' workspaces and the turn-lease notices, and serves one
// connection on Stdin and Stdout until Stdin ends or Ctrl-C. usage
// reports that err is in the flags or the deployment.
func Run(o Options) (usage bool, err error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.LogLevel)); err != nil {
		return true, fmt.Errorf("-log-level: %w", err)
	}
	logOut := o.Stderr
	if o.LogFile != "" {
		lf, err := os.OpenFile(o.LogFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return true, fmt.Errorf("-log: %w", err)
		}
		defer lf.Close()
		logOut = lf
	}
	logger := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))

	var pd wiring.Deployment
	if o.Config != "" {
		pd, err = wiring.LoadDeployment(o.Config)
	} else {
		pd, err = wiring.ParseDeployment(defaultDeployID, demo.Deployment())
	}
	if err != nil {
		return true, err
	}
	model, err := wiring.Model(o.Model, o.OpenAI, o.Plan)
	if err != nil {
		return true, err
	}
	stateDir, stateErr := wiring.StateDir(o.Getenv)
	if o.Sessions == "" {
		if stateErr != nil {
			return true, stateErr
		}
		o.Sessions = filepath.Join(stateDir, wiring.AppDir, wiring.SessionsDir)
	}
	// The tools never touch where planhost keeps its state, whatever cwd
	// the editor sends.
	forbidden := []string{o.Sessions}
	if stateErr == nil {
		forbidden = append(forbidden, filepath.Join(stateDir, wiring.AppDir))
	}
	// Nor the plans under review: a session whose cwd lies inside the plan
	// directory is refused, and the tools of one that holds it never
	// reach it.
	if pd.PlanDir != "" {
		forbidden = append(forbidden, pd.PlanDir)
	}
	if forbidden, err = wiring.SettleDocuments(o.Store, &o.Documents, "", stateDir, stateErr, forbidden); err != nil {
		return true, err
	}
	// Each repair the file store makes on opening a session is logged.
	sessions, usage, err := wiring.OpenStore(o.Store, o.Sessions, o.Getenv, o.Lease, logger, store.WithLogger(wiring.RepairLogger(logOut, "acp", "", nil)))
	if err != nil {
		return usage, err
	}
	defer sessions.Close()
	// The todo lists live with the sessions: in the database with a
	// PostgreSQL store.
	docs, err := sessions.Documents(o.Documents)
	if err != nil {
		return false, err
	}
	workspaces := NewWorkspaces(workspace.Limits{}, workspace.WithForbidden(forbidden...))
	defer workspaces.Close()

	// The turn-lease notices of sessions other processes share reach the
	// client showing the session.
	notices := &LeaseNotices{}
	lease := &wiring.Lease{}
	lease.SetFor(func(a *refhost.Agent, h host.LeaseHolder) { notices.Busy(a, h, 0) }, notices.LeaseLost)
	var executeModel string
	if wiring.Routed(model) {
		executeModel = o.OpenAI.Model
	}
	app, parts := wiring.New(wiring.Config{Store: sessions, Model: model, Deployment: pd.Deployment, Tools: workspaces.Tools(), Logger: logger,
		Documents: docs, Lease: lease, ExecuteModel: executeModel})
	if err := app.Err(); err != nil {
		return true, err
	}
	if err := wiring.BindRouter(model, parts); err != nil {
		return true, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := app.Start(ctx); err != nil {
		return false, err
	}
	defer wiring.Stop(app)
	// Ctrl-C ends the connection: running turns are cancelled and logged
	// as such before the program exits.
	sigs, stopSigs := o.Interrupt()
	defer stopSigs()
	go func() {
		select {
		case <-sigs:
			logger.Info("planhost acp: interrupted; stopping")
			cancel()
		case <-ctx.Done():
		}
	}()
	return false, Serve(ctx, Config{
		Runtime:    parts.Runtime,
		Plan:       parts.Plan,
		Store:      sessions,
		Workspaces: workspaces,
		Logger:     logger,
		Version:    o.Version,
		Catalog:    o.Catalog,
		ToolKinds:  CompanionToolKinds(),
		Plans:      CompanionPlans{Catalog: o.Catalog},
		Leases:     notices,
	}, o.Stdin, o.Stdout)
}
