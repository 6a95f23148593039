package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/safetext"
	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/tui"
	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

// Model choices of -model.
const (
	modelOpenAI         = "openai"
	modelScriptedPrefix = "scripted:"
	defaultOpenAIRetry  = 2
)

// Where planhost keeps its state by default.
const (
	appDirName      = "planhost"
	sessionsDirName = "sessions"
	historyFileName = "history"
)

// runFlags are the flags of "planhost run".
type runFlags struct {
	config, session, sessions, store, model, workspace string
	agent, documents                                   string
	openai                                             openaimodel.Config
	plan                                               planModelFlags
	ui                                                 uiFlags
}

// run is "planhost run": an interactive session.
func (p *program) run(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	env := openaimodel.FromEnv(p.getenv)
	stateDir, stateErr := p.stateDir()
	shownState := stateDir
	if stateErr != nil {
		shownState = filepath.Join("$HOME", ".local", "state")
	}
	var f runFlags
	fs.StringVar(&f.config, "config", "", flagConfigHelp)
	fs.StringVar(&f.session, "session", "", flagSessionHelp)
	fs.StringVar(&f.sessions, "sessions", "", fmt.Sprintf(flagSessionsHelp, filepath.Join(shownState, appDirName, sessionsDirName)))
	fs.StringVar(&f.store, "store", storeFile, flagStoreHelp)
	fs.DurationVar(&p.leaseExpiry, "lease", pgstore.DefaultLeaseExpiry, flagLeaseHelp)
	fs.StringVar(&f.model, "model", modelOpenAI, flagModelHelp)
	fs.StringVar(&f.workspace, "workspace", ".", flagWorkspaceHelp)
	fs.StringVar(&f.agent, "agent", defaultAgentID, flagAgentHelp)
	fs.StringVar(&f.documents, "documents", "", fmt.Sprintf(flagDocumentsHelp, filepath.Join(shownState, appDirName, documentsDirName)))
	finishOpenAI := addOpenAIFlags(fs, &f.openai, env)
	finishPlan := addPlanModelFlags(fs, &f.plan, p.getenv)
	f.ui.define(fs)
	if code, done := p.parseFlags(fs, usageRun, args); done {
		return code
	}
	finishOpenAI()
	finishPlan()
	if fs.NArg() > 0 {
		return p.extraArgs("run", fs.Args())
	}
	if f.config == "" {
		fmt.Fprintf(p.stderr, errNeedConfig, "run")
		return exitUsage
	}
	if err := f.resolveSession(); err != nil {
		return p.usageError("run", err)
	}
	pd, err := loadDeployment(f.config)
	if err != nil {
		return p.configError("run", err)
	}
	dep := pd.dep
	relay := &deltaRelay{}
	f.openai.Stream, f.openai.OnDelta = f.ui.stream, relay.send
	model, err := p.model(f)
	if err != nil {
		return p.usageError("run", err)
	}
	forbidden, err := p.settleState(&f, stateDir, stateErr)
	if err != nil {
		return p.usageError("run", err)
	}
	if forbidden, err = settleDocuments(&f, stateDir, stateErr, forbidden); err != nil {
		return p.usageError("run", err)
	}
	// The plans under review stay out of the model's reach too.
	if err := checkPlansApart(f.workspace, pd.planDir, f.config); err != nil {
		return p.usageError("run", err)
	}
	if pd.planDir != "" {
		forbidden = append(forbidden, pd.planDir)
	}
	if err := f.continueSession(); err != nil {
		return p.usageError("run", err)
	}
	ws, err := workspace.Open(f.workspace, workspace.Limits{}, workspace.WithForbidden(forbidden...))
	if err != nil {
		return p.usageError("run", fmt.Errorf("-workspace: %w", err))
	}
	defer ws.Close()
	// Each repair the file store makes on opening a session is shown in one line.
	sessions, usage, err := p.openStore(f.store, f.sessions, store.WithLogger(newRepairLogger(p.stderr, "run", "", nil)))
	if usage {
		return p.usageError("run", err)
	} else if err != nil {
		return p.fail("run", err)
	}
	defer sessions.Close()
	if f.ui.cont && f.session == "" {
		// The newest session of the store in use.
		id, err := sessions.latest()
		if err != nil {
			return p.usageError("run", fmt.Errorf("-continue: %w", err))
		}
		f.session = id
	}

	docs, err := sessions.documents(f.documents)
	if err != nil {
		return p.fail("run", err)
	}
	if stateErr != nil {
		stateDir = ""
	}
	logger, closeLog, err := p.runLogger(stateDir)
	if err != nil {
		return p.usageError("run", err)
	}
	defer closeLog()
	lease := &leaseRelay{}
	var executeModel string
	if _, ok := model.(*modelRouter); ok {
		executeModel = f.openai.Model
	}
	app, parts := newHost(hostConfig{store: sessions, model: model, deployment: dep, tools: ws.Tools(), logger: logger, documents: docs, lease: lease,
		executeModel: executeModel})
	if err := app.Err(); err != nil {
		return p.usageError("run", err)
	}
	if err := bindRouter(model, parts); err != nil {
		return p.usageError("run", err)
	}
	ctx := context.Background()
	if err := app.Start(ctx); err != nil {
		return p.fail("run", err)
	}
	defer stopApp(app)

	var sess host.Session
	resumed := f.session != ""
	if resumed {
		sess, err = sessions.Open(f.session)
		if errors.Is(err, host.ErrSessionNotFound) {
			return p.usageError("run", fmt.Errorf("-session %s: %w in %s", f.session, err, sessions.where("")))
		}
	} else {
		sess, err = sessions.Create("")
	}
	if err != nil {
		return p.fail("run", err)
	}
	agent, err := parts.Runtime.NewAgent(f.agent, sess)
	if err != nil {
		return p.fail("run", err)
	}
	defer stopAgent(agent)
	file := sessions.where(sess.ID())
	if p.terminal() {
		cat := p.tuiCatalog(f.ui.lang)
		intro := []tui.Entry{{Kind: tui.KindMeta, Text: fmt.Sprintf(cat.SessionLine, sess.ID(), file)}}
		if f.model == modelOpenAI {
			intro = append(intro, tui.Entry{Kind: tui.KindMeta, Text: fmt.Sprintf(cat.ModelAtLine, f.openai.Model, endpointShown(f.openai.BaseURL))})
			if pc, ok := planConfig(f.openai, f.plan); ok {
				intro = append(intro, tui.Entry{Kind: tui.KindMeta, Text: fmt.Sprintf(cat.PlanModelAtLine, pc.Model, endpointShown(pc.BaseURL))})
			}
		}
		if resumed {
			intro = append(intro, tui.Entry{Kind: tui.KindMeta, Text: fmt.Sprintf(cat.RecapLine, sess.ID(), sess.Len())})
			intro = append(intro, recap(sess.Events(), recapEntries, cat)...)
		}
		return p.converseTUI(ctx, parts, agent, tuiSession{file: file, stateDir: stateDir, intro: intro, cat: cat, relay: relay,
			verbose: f.ui.verbose, logger: logger, lease: lease})
	}
	// The line console says on stderr when another process runs the turn.
	lease.set(func(h host.LeaseHolder) {
		fmt.Fprintf(p.stderr, lineSessionBusy+"\n", safetext.Escape(h.Host), h.PID, h.Since.UTC().Format(time.DateTime))
	}, func() { fmt.Fprintln(p.stderr, lineLeaseLost) })
	defer lease.set(nil, nil)
	return p.converse(ctx, parts, agent, file, resumed)
}

// converse runs the line console over pipes (stdin or stdout is not a
// terminal): one input per line, no escape sequences.
func (p *program) converse(ctx context.Context, parts *hostParts, agent *refhost.Agent, file string, resumed bool) int {
	out := p.stdout
	var src lineSource = newPipeSource(p.stdin, isTerminal(p.stdin))
	defer src.Close()
	md, err := newMarkdown(styleNoTTY)
	if err != nil {
		return p.fail("run", err)
	}
	sigs, stop := p.notifyInterrupt()
	defer stop()
	c := &console{
		out:        out,
		rt:         parts.Runtime,
		agent:      agent,
		plan:       parts.Plan,
		view:       newPrinter(out, md, parts.Presenters, parts.Plan != nil),
		src:        src,
		interrupts: sigs,
	}
	if parts.PlanFile != nil {
		c.planFile = parts.PlanFile.Path(agent)
	}
	unset, err := parts.Runtime.Questions().SetProvider(c)
	if err != nil {
		return p.fail("run", err)
	}
	defer unset()
	if resumed {
		fmt.Fprintf(out, lineResumed+"\n", agent.Session().ID(), agent.Session().Len())
	}
	fmt.Fprintf(out, lineSession+"\n", agent.Session().ID(), file)
	c.serve(ctx)
	// Close the terminal first, so that the last line is not followed by
	// a prompt.
	src.Close()
	fmt.Fprintf(p.stdout, lineSessionFile+"\n", file)
	return exitOK
}

// model builds the model -model names: with -plan-model, a router
// between the two (see bindRouter).
func (p *program) model(f runFlags) (refhost.Model, error) {
	_, plan := planConfig(f.openai, f.plan)
	switch {
	case f.model == modelOpenAI:
		m, err := openaimodel.New(f.openai)
		if err != nil {
			return nil, fmt.Errorf("-model openai: %w", err)
		}
		if !plan {
			return m, nil
		}
		pc, _ := planConfig(f.openai, f.plan)
		pm, err := openaimodel.New(pc)
		if err != nil {
			return nil, fmt.Errorf("-plan-model: %w", err)
		}
		return newModelRouter(m, f.openai.Model, pm, pc.Model)
	case plan:
		return nil, errors.New(errPlanModelScripted)
	case strings.HasPrefix(f.model, modelScriptedPrefix) && len(f.model) > len(modelScriptedPrefix):
		steps, err := scripted.LoadScript(strings.TrimPrefix(f.model, modelScriptedPrefix))
		if err != nil {
			return nil, fmt.Errorf("-model %s: %w", f.model, err)
		}
		return scripted.NewModel(steps...), nil
	}
	return nil, fmt.Errorf("-model %q: want scripted:FILE or openai", f.model)
}

// stateDir is the user's state directory: $XDG_STATE_HOME, else
// ~/.local/state. With neither variable set (to an absolute path) there is
// none: planhost never falls back to a directory other users share.
func (p *program) stateDir() (string, error) {
	if d := p.getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	if home := p.getenv("HOME"); filepath.IsAbs(home) {
		return filepath.Join(home, ".local", "state"), nil
	}
	return "", errors.New(errNoStateDir)
}
