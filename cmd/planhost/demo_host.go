package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
	"go.uber.org/fx"
)

// demoHost is the host a demo scene plays on: a scripted model, the sample
// workspace copied into the demo directory, and a file store there.
type demoHost struct {
	sessions *store.Dir
	model    *scripted.Model
	parts    *hostParts
	app      *fx.App
	ws       *workspace.Workspace
	md       *mdview.Renderer // the console's Markdown, without a terminal
}

// demoScene is what tells the demo scenes apart.
type demoScene struct {
	script     []byte // the scripted model's steps
	deployName string // the deployment's file name (relative dirs resolve against it)
	deployment []byte
	documents  host.Documents // nil: no agent documents
}

// startDemoHost builds and starts the host of scene s in dir. The caller
// closes it.
func (p *program) startDemoHost(dir string, s demoScene) (*demoHost, error) {
	steps, err := scripted.ParseScript(s.script)
	if err != nil {
		return nil, err
	}
	pd, err := parseDeployment(s.deployName, s.deployment)
	if err != nil {
		return nil, err
	}
	dep := pd.dep
	wsDir := filepath.Join(dir, demoWorkspaceDir)
	if err := copyEmbedded(demoFiles, demoWorkspaceRoot, wsDir); err != nil {
		return nil, err
	}
	// The demo directory holds the workspace beside the sessions and the
	// plans; the tools never reach either, as in "planhost run".
	sessionsDir := filepath.Join(dir, demoSessionsDir)
	if err := checkPlansApart(wsDir, pd.planDir, s.deployName); err != nil {
		return nil, err
	}
	ws, err := workspace.Open(wsDir, workspace.Limits{}, workspace.WithForbidden(sessionsDir, pd.planDir))
	if err != nil {
		return nil, err
	}
	sessions, err := store.OpenDir(sessionsDir)
	if err != nil {
		ws.Close()
		return nil, err
	}
	md, err := newMarkdown(styleNoTTY)
	if err != nil {
		sessions.Close()
		ws.Close()
		return nil, err
	}
	model := scripted.NewModel(steps...)
	logger := slog.New(slog.NewTextHandler(p.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	app, parts := newHost(hostConfig{store: sessions, model: model, deployment: dep,
		tools: ws.Tools(), logger: logger, documents: s.documents})
	if err := app.Start(context.Background()); err != nil {
		sessions.Close()
		ws.Close()
		return nil, err
	}
	return &demoHost{sessions: sessions, model: model, parts: parts, app: app, ws: ws, md: md}, nil
}

// serve plays the user's lines on agent's console, printing to out, with
// reviewer answering the questions, until the lines run out.
func (h *demoHost) serve(ctx context.Context, out io.Writer, agent *refhost.Agent, lines []string, reviewer reviewerFunc) error {
	src := newPipeSource(strings.NewReader(strings.Join(lines, "\n")+"\n"), false)
	defer src.Close()
	c := &console{
		out:      out,
		rt:       h.parts.Runtime,
		agent:    agent,
		plan:     h.parts.Plan,
		view:     newPrinter(out, h.md, h.parts.Presenters, h.parts.Plan != nil),
		src:      src,
		reviewer: reviewer,
	}
	unset, err := h.parts.Runtime.Questions().SetProvider(c)
	if err != nil {
		return err
	}
	defer unset()
	c.serve(ctx)
	return nil
}

// close stops the host and closes its store and workspace.
func (h *demoHost) close() {
	stopApp(h.app)
	h.sessions.Close()
	h.ws.Close()
}
