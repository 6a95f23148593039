package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/console"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/cmd/planhost/internal/tui"
	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/cmd/planhost/openaimodel"
	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
)

// defaultAgentID names the agent of "planhost run": one agent across
// sessions, so that its todo list carries over.
const defaultAgentID = "planhost"

// recapItems is how much of a resumed session the terminal UI recaps.
const recapItems = 6

// runFlags are the flags of "planhost run".
type runFlags struct {
	config, session, sessions, store, model, workspace string
	agent, documents                                   string
	openai                                             openaimodel.Config
	plan                                               wiring.PlanModel
	ui                                                 uiFlags
}

// run is "planhost run": an interactive session.
func (p *program) run(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	env := openaimodel.FromEnv(p.getenv)
	stateDir, stateErr := wiring.StateDir(p.getenv)
	shownState := stateDir
	if stateErr != nil {
		shownState = filepath.Join("$HOME", ".local", "state")
	}
	var f runFlags
	fs.StringVar(&f.config, "config", "", flagConfigHelp)
	fs.StringVar(&f.session, "session", "", flagSessionHelp)
	fs.StringVar(&f.sessions, "sessions", "", fmt.Sprintf(flagSessionsHelp, filepath.Join(shownState, wiring.AppDir, wiring.SessionsDir)))
	fs.StringVar(&f.store, "store", wiring.StoreFile, flagStoreHelp)
	fs.DurationVar(&p.leaseExpiry, "lease", pgstore.DefaultLeaseExpiry, flagLeaseHelp)
	fs.StringVar(&f.model, "model", wiring.ModelOpenAI, flagModelHelp)
	fs.StringVar(&f.workspace, "workspace", ".", flagWorkspaceHelp)
	fs.StringVar(&f.agent, "agent", defaultAgentID, flagAgentHelp)
	fs.StringVar(&f.documents, "documents", "", fmt.Sprintf(flagDocumentsHelp, filepath.Join(shownState, wiring.AppDir, wiring.DocumentsDir)))
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
	dep, err := wiring.LoadDeployment(f.config)
	if err != nil {
		return p.configError("run", err)
	}
	deltas := &deltaRelay{}
	f.openai.Stream, f.openai.OnDelta = f.ui.stream, deltas.send
	model, err := wiring.Model(f.model, f.openai, f.plan)
	if err != nil {
		return p.usageError("run", err)
	}
	if stateErr != nil && p.terminal() {
		return p.usageError("run", stateErr) // the terminal keeps its history there
	}
	forbidden, err := wiring.SettleState(&f.sessions, f.workspace, stateDir, stateErr)
	if err != nil {
		return p.usageError("run", err)
	}
	if forbidden, err = wiring.SettleDocuments(f.store, &f.documents, f.workspace, stateDir, stateErr, forbidden); err != nil {
		return p.usageError("run", err)
	}
	// The plans under review stay out of the model's reach too.
	if err := wiring.CheckPlansApart(f.workspace, dep.PlanDir, f.config); err != nil {
		return p.usageError("run", err)
	}
	if dep.PlanDir != "" {
		forbidden = append(forbidden, dep.PlanDir)
	}
	if err := f.continueSession(); err != nil {
		return p.usageError("run", err)
	}
	ws, err := workspace.Open(f.workspace, workspace.Limits{}, workspace.WithForbidden(forbidden...))
	if err != nil {
		return p.usageError("run", fmt.Errorf("-workspace: %w", err))
	}
	defer ws.Close()
	if stateErr != nil {
		stateDir = ""
	}
	logger, closeLog, err := wiring.Logger(p.terminal(), p.stderr, stateDir)
	if err != nil {
		return p.usageError("run", err)
	}
	defer closeLog()
	// Each repair the file store makes on opening a session is shown in one
	// line; the PostgreSQL store's warnings go to the log.
	sessions, usage, err := wiring.OpenStore(f.store, f.sessions, p.getenv, p.leaseExpiry, logger, store.WithLogger(wiring.RepairLogger(p.stderr, "run", "", nil)))
	if usage {
		return p.usageError("run", err)
	} else if err != nil {
		return p.fail("run", err)
	}
	defer sessions.Close()
	if f.ui.cont && f.session == "" {
		// The newest session of the store in use.
		id, err := sessions.Latest()
		if err != nil {
			return p.usageError("run", fmt.Errorf("-continue: %w", err))
		}
		f.session = id
	}
	docs, err := sessions.Documents(f.documents)
	if err != nil {
		return p.fail("run", err)
	}
	lease := &wiring.Lease{}
	var executeModel string
	if wiring.Routed(model) {
		executeModel = f.openai.Model
	}
	app, parts := wiring.New(wiring.Config{Store: sessions, Model: model, Deployment: dep.Deployment, Tools: ws.Tools(), Logger: logger,
		Documents: docs, Lease: lease, ExecuteModel: executeModel})
	if err := app.Err(); err != nil {
		return p.usageError("run", err)
	}
	if err := wiring.BindRouter(model, parts); err != nil {
		return p.usageError("run", err)
	}
	ctx := context.Background()
	if err := app.Start(ctx); err != nil {
		return p.fail("run", err)
	}
	defer wiring.Stop(app)

	var sess host.Session
	resumed := f.session != ""
	if resumed {
		sess, err = sessions.Open(f.session)
		if errors.Is(err, host.ErrSessionNotFound) {
			return p.usageError("run", fmt.Errorf("-session %s: %w in %s", f.session, err, sessions.Where("")))
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
	defer wiring.StopAgent(agent)
	cat := p.catalog(f.ui.lang)
	planFile := ""
	if parts.PlanFile != nil {
		planFile = parts.PlanFile.Path(agent)
	}
	file := sessions.Where(sess.ID())
	if p.terminal() {
		return p.runTUI(ctx, tui.Session{Runtime: parts.Runtime, Agent: agent, Plan: parts.Plan, PlanFile: planFile,
			Catalog: cat, Verbose: f.ui.verbose, Logger: logger, Intro: intro(cat, sess, file, f, resumed),
			Deltas: deltas.set, Lease: lease.Set}, stateDir, file)
	}
	// The line console says on stderr when another process runs the turn.
	w := &cat.Session
	lease.Set(func(h host.LeaseHolder) {
		p.printErr(fmt.Sprintf(w.SessionBusy, h.Host, h.PID, h.Since.UTC().Format(time.DateTime)))
	}, func(cause error) { p.printErr(cat.LeaseLoss(cause)) })
	defer lease.Set(nil, nil)
	return p.runConsole(ctx, parts, agent, cat, f.ui.verbose, planFile, file, resumed)
}

// printErr prints a line on stderr, escaped.
func (p *program) printErr(line string) {
	out := &present.Plain{W: p.stderr}
	out.Line(line)
}

// catalog is the words for -lang, or the environment's language.
func (p *program) catalog(lang string) *present.Catalog {
	return present.For(lang, p.getenv("LC_ALL"), p.getenv("LC_MESSAGES"), p.getenv("LANG"))
}

// intro is what the terminal UI shows first: the session and its file,
// the models and their endpoints, and a resumed session's last exchanges.
func intro(cat *present.Catalog, sess host.Session, file string, f runFlags, resumed bool) []present.Item {
	w := &cat.Session
	items := []present.Item{{Kind: present.Note, Text: fmt.Sprintf(w.SessionLine, sess.ID(), file)}}
	if f.model == wiring.ModelOpenAI {
		items = append(items, present.Item{Kind: present.Note, Text: fmt.Sprintf(w.ModelAt, f.openai.Model, wiring.Endpoint(f.openai.BaseURL))})
		if pc, ok := wiring.PlanConfig(f.openai, f.plan); ok {
			items = append(items, present.Item{Kind: present.Note, Text: fmt.Sprintf(w.PlanModelAt, pc.Model, wiring.Endpoint(pc.BaseURL))})
		}
	}
	if resumed {
		items = append(items, present.Item{Kind: present.Note, Text: fmt.Sprintf(w.Resumed, sess.ID(), sess.Len())})
		items = append(items, present.Recap(cat, sess.Events(), recapItems)...)
	}
	return items
}

// runTUI runs the session in the terminal UI, with the input history in
// the state directory.
func (p *program) runTUI(ctx context.Context, s tui.Session, stateDir, file string) int {
	s.In, s.Out = p.stdin, p.stdout
	s.NoColor = p.getenv("NO_COLOR") != ""
	s.Editor = p.getenv("VISUAL")
	if s.Editor == "" {
		s.Editor = p.getenv("EDITOR")
	}
	if path, err := wiring.OpenHistory(stateDir); err == nil {
		s.History = wiring.LoadHistory(path)
		s.SaveHistory = func(entry string) { _ = wiring.AppendHistory(path, entry) }
	}
	if err := tui.Run(ctx, s); err != nil {
		return p.fail("run", err)
	}
	out := present.Plain{W: p.stdout}
	out.Line(fmt.Sprintf(s.Catalog.Session.SessionFile, file))
	return exitOK
}

// runConsole runs the line console over pipes (stdin or stdout is not a
// terminal): one input per line, no escape sequences.
func (p *program) runConsole(ctx context.Context, parts *wiring.Parts, agent *refhost.Agent, cat *present.Catalog, verbose bool, planFile, file string, resumed bool) int {
	src := console.NewReader(p.stdin, isTerminal(p.stdin))
	defer src.Close()
	md, err := mdview.New(mdview.StyleNoTTY, markdownWidth)
	if err != nil {
		return p.fail("run", err)
	}
	sigs, stop := p.notifyInterrupt()
	defer stop()
	out := &present.Plain{W: p.stdout}
	w := &cat.Session
	if resumed {
		out.Line(fmt.Sprintf(w.Resumed, agent.Session().ID(), agent.Session().Len()))
	}
	out.Line(fmt.Sprintf(w.SessionLine, agent.Session().ID(), file))
	if _, err := console.Run(ctx, console.Config{Out: p.stdout, In: src, Runtime: parts.Runtime, Agent: agent, Plan: parts.Plan,
		Catalog: cat, Verbose: verbose, Markdown: md.Render, PlanFile: planFile, Interrupts: sigs}); err != nil {
		return p.fail("run", err)
	}
	// Close the terminal first, so that the last line is not followed by
	// a prompt.
	src.Close()
	out.Line(fmt.Sprintf(w.SessionFile, file))
	return exitOK
}

// markdownWidth is the width plans are rendered at over pipes, so that
// the output is the same on every machine.
const markdownWidth = 80

// deltaRelay hands a streaming model's pieces to whoever shows them: the
// terminal UI while it runs, nobody otherwise.
type deltaRelay struct {
	mu sync.Mutex
	to func(text, reasoning string)
}

func (r *deltaRelay) send(d openaimodel.Delta) {
	r.mu.Lock()
	f := r.to
	r.mu.Unlock()
	if f != nil {
		f(d.Text, d.Reasoning)
	}
}

func (r *deltaRelay) set(f func(text, reasoning string)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.to = f
}
