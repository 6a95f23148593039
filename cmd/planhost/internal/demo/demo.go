// Package demo plays planhost's scripted scenes: a scripted model and a
// scripted user on a sample workspace copied into a directory, shown by
// the line console in the user's language. The scene "plan" is the
// demo's story: the user enters plan mode with a request, the model
// explores and presents a plan, the user sends it back once with feedback
// and approves the revision, and the model carries it out. "entry" and
// "companions" show the companion plugins.
package demo

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode/cmd/planhost/internal/console"
	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

// files holds the scenes and the sample workspace.
//
//go:embed scenes _workspace
var files embed.FS

// Names inside the embedded files and the demo directory.
const (
	workspaceRoot = "_workspace"
	sessionsDir   = "sessions"
	workspaceDir  = "workspace"
	documentsDir  = "documents"
	deployFile    = "deploy.yaml"
)

// Scenes are the scenes Play knows, the story first.
var Scenes = []string{"plan", "entry", "companions"}

// Deployment is the story's deployment, which planhost acp runs when it is
// given none.
func Deployment() []byte {
	b, _ := files.ReadFile(path.Join("scenes", Scenes[0], deployFile))
	return b
}

// story is what a scene's user types and answers.
type story struct {
	// Agent names the agent ("" for a fresh ID); Documents keeps the
	// agent's documents (the todo list) across its sessions.
	Agent     string `yaml:"agent"`
	Documents bool   `yaml:"documents"`
	// Sessions are the sessions played, each the user's lines in order.
	Sessions []struct {
		User []string `yaml:"user"`
	} `yaml:"sessions"`
	// Answers answer the questions put to the user, in order: the role of
	// the option chosen and the user's words.
	Answers []answer `yaml:"answers"`
}

type answer struct {
	Role host.Role `yaml:"role"`
	Text string    `yaml:"text"`
}

// Config is how a scene is played.
type Config struct {
	// Scene is one of Scenes.
	Scene string
	// Dir is the directory the scene plays in; it holds the sessions and
	// the changed workspace afterwards.
	Dir string
	// Out receives the transcript; Log the host's warnings.
	Out, Log io.Writer
	// Catalog gives the words; Verbose shows the internal lines.
	Catalog *present.Catalog
	Verbose bool
	// Markdown renders plans as plain text; nil prints them as they are.
	Markdown func(string) (string, error)
}

// ErrUnknownScene means Config.Scene is none of Scenes.
var ErrUnknownScene = errors.New("unknown scene")

// Play plays a scene and returns the session files it wrote. It fails
// when the scene did not end as scripted: a model step or an answer left
// unused, a turn that did not complete, plan mode still on.
func Play(ctx context.Context, cfg Config) ([]string, error) {
	if !isScene(cfg.Scene) {
		return nil, fmt.Errorf("%w %q (scenes: %s)", ErrUnknownScene, cfg.Scene, strings.Join(Scenes, ", "))
	}
	s, script, dep, err := load(cfg.Scene, cfg.Dir)
	if err != nil {
		return nil, err
	}
	wsDir := filepath.Join(cfg.Dir, workspaceDir)
	if err := copyWorkspace(wsDir); err != nil {
		return nil, err
	}
	// The demo directory holds the workspace beside the sessions and the
	// plans; the tools never reach either, as in "planhost run".
	sessions := filepath.Join(cfg.Dir, sessionsDir)
	if err := wiring.CheckPlansApart(wsDir, dep.PlanDir, filepath.Join(cfg.Dir, deployFile)); err != nil {
		return nil, err
	}
	ws, err := workspace.Open(wsDir, workspace.Limits{}, workspace.WithForbidden(sessions, dep.PlanDir))
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	dir, err := store.OpenDir(sessions)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	var docs host.Documents
	if s.Documents {
		if docs, err = store.OpenDirDocuments(filepath.Join(cfg.Dir, documentsDir)); err != nil {
			return nil, err
		}
	}
	model := scripted.NewModel(script...)
	logger := slog.New(slog.NewTextHandler(cfg.Log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	app, parts := wiring.New(wiring.Config{Store: dir, Model: model, Deployment: dep.Deployment, Tools: ws.Tools(),
		Logger: logger, Documents: docs})
	if err := app.Start(ctx); err != nil {
		return nil, err
	}
	defer wiring.Stop(app)

	user := &scriptedUser{answers: s.Answers, out: cfg.Out, cat: cfg.Catalog}
	var played []string
	for _, sess := range s.Sessions {
		hs, err := dir.Create("")
		if err != nil {
			return played, err
		}
		played = append(played, dir.Path(hs.ID()))
		agent, err := parts.Runtime.NewAgent(s.Agent, hs)
		if err != nil {
			return played, err
		}
		in := console.NewReader(strings.NewReader(strings.Join(sess.User, "\n")+"\n"), false)
		_, err = console.Run(ctx, console.Config{Out: cfg.Out, In: in, Runtime: parts.Runtime, Agent: agent, Plan: parts.Plan,
			Catalog: cfg.Catalog, Verbose: cfg.Verbose, Markdown: cfg.Markdown, Reviewer: user.answer})
		in.Close()
		wiring.StopAgent(agent)
		if err != nil {
			return played, err
		}
		if err := lastTurnCompleted(hs); err != nil {
			return played, err
		}
		if parts.Plan != nil && parts.Plan.Get(agent).Active {
			return played, errors.New("the scene ended in plan mode")
		}
	}
	switch {
	case model.Remaining() != 0:
		return played, fmt.Errorf("%d model steps unused", model.Remaining())
	case len(user.answers) != 0:
		return played, fmt.Errorf("%d answers unused", len(user.answers))
	}
	return played, nil
}

func isScene(name string) bool {
	for _, s := range Scenes {
		if s == name {
			return true
		}
	}
	return false
}

// load reads a scene's story, script and deployment; the deployment's
// relative directories resolve against the scene's directory, dir.
func load(scene, dir string) (story, []scripted.Step, wiring.Deployment, error) {
	var s story
	read := func(name string) ([]byte, error) { return files.ReadFile(path.Join("scenes", scene, name)) }
	data, err := read("story.yaml")
	if err != nil {
		return s, nil, wiring.Deployment{}, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return s, nil, wiring.Deployment{}, fmt.Errorf("%s story: %w", scene, err)
	}
	data, err = read("script.yaml")
	if err != nil {
		return s, nil, wiring.Deployment{}, err
	}
	script, err := scripted.ParseScript(data)
	if err != nil {
		return s, nil, wiring.Deployment{}, fmt.Errorf("%s script: %w", scene, err)
	}
	data, err = read(deployFile)
	if err != nil {
		return s, nil, wiring.Deployment{}, err
	}
	dep, err := wiring.ParseDeployment(filepath.Join(dir, deployFile), data)
	return s, script, dep, err
}

// copyWorkspace writes the sample workspace to dir, with ordinary
// permissions (embedded files are read-only).
func copyWorkspace(dir string) error {
	return fs.WalkDir(files, workspaceRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(workspaceRoot, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(files, p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// lastTurnCompleted checks that the session's last turn completed.
func lastTurnCompleted(sess host.Session) error {
	events := sess.Events()
	for _, e := range events.Backward(events.Len()) {
		if e.Type != host.TypeTurnEnd {
			continue
		}
		var end host.TurnEnd
		if json.Unmarshal(e.Data, &end) != nil || end.Reason != host.TurnCompleted {
			return fmt.Errorf("the last turn ended: %s", e.Data)
		}
		return nil
	}
	return errors.New("no turn ended")
}

// scriptedUser answers the questions from the story, in order, choosing
// each time the option of the story's role, and prints what it chose as
// the user's line.
type scriptedUser struct {
	answers []answer
	out     io.Writer
	cat     *present.Catalog
}

func (u *scriptedUser) answer(req host.AskRequest) ([]host.Answer, error) {
	if len(u.answers) == 0 || len(req.Questions) != 1 {
		return nil, fmt.Errorf("the story has no answer for this question: %w", host.ErrDismissed)
	}
	a := u.answers[0]
	u.answers = u.answers[1:]
	for _, c := range u.cat.Menu(req, 0, false) {
		if c.Action != present.Answer || c.Option.Role != a.Role {
			continue
		}
		said := c.Label
		if a.Text != "" {
			said += ": " + a.Text
		}
		fmt.Fprintln(u.out, "› "+said)
		q := req.Questions[0]
		return []host.Answer{{QuestionID: q.ID, Selected: []string{c.Option.Label}, Custom: a.Text, DetailDigest: q.DetailDigest}}, nil
	}
	return nil, fmt.Errorf("the question offers no option of role %q: %w", a.Role, host.ErrDismissed)
}
