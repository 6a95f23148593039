package main

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/refhost/scripted"
)

// The demo's embedded inputs.
var (
	//go:embed demo/deploy.yaml
	demoDeployment []byte
	//go:embed demo/script.yaml
	demoScript []byte
	//go:embed demo/story.yaml
	demoStoryYAML []byte
	//go:embed demo/_workspace
	demoFiles embed.FS
)

// Names inside the embedded files and the demo directory.
const (
	demoDeploymentName = "demo/deploy.yaml"
	demoWorkspaceRoot  = "demo/_workspace"
	demoSessionsDir    = "sessions"
	demoWorkspaceDir   = "workspace"
	demoDirPattern     = "planhost-demo-"
	// stopTimeout bounds stopping the host at the end of a command.
	stopTimeout = 10 * time.Second
)

// demoStory is what the demo's user types and how its reviewer answers.
type demoStory struct {
	User    []string      `yaml:"user"`
	Reviews []demoVerdict `yaml:"reviews"`
}

type demoVerdict struct {
	Choice   string `yaml:"choice"`
	Feedback string `yaml:"feedback"`
}

func parseStory(data []byte) (demoStory, error) {
	var s demoStory
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("story: %w", err)
	}
	if len(s.User) == 0 {
		return s, errors.New("story: user: no lines")
	}
	return s, nil
}

// demo plays the embedded story and prints its transcript.
func (p *program) demo(args []string) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	keep := fs.Bool("keep", false, flagKeepHelp)
	scene := fs.String("scene", "", flagSceneHelp)
	if code, done := p.parseFlags(fs, usageDemo, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(p.stderr, errExtraArgs, "demo", fs.Args())
		return exitUsage
	}
	play := p.playDemo
	switch *scene {
	case "":
	case sceneEntry:
		play = p.playEntryDemo
	default:
		fmt.Fprintf(p.stderr, errUnknownScene, *scene)
		return exitUsage
	}
	dir, err := os.MkdirTemp(p.tempDir, demoDirPattern)
	if err != nil {
		return p.fail("demo", err)
	}
	code := play(dir, *keep)
	if !*keep {
		if err := os.RemoveAll(dir); err != nil {
			return p.fail("demo", err)
		}
		fmt.Fprintln(p.stdout, lineDemoRemoved)
	}
	return code
}

func (p *program) playDemo(dir string, keep bool) int {
	story, err := parseStory(demoStoryYAML)
	if err != nil {
		return p.fail("demo", err)
	}
	h, err := p.startDemoHost(dir, demoScene{script: demoScript, deployName: demoDeploymentName, deployment: demoDeployment})
	if err != nil {
		return p.fail("demo", err)
	}
	defer h.close()
	sessions, parts, model := h.sessions, h.parts, h.model
	ctx := context.Background()
	sess, err := sessions.Create("")
	if err != nil {
		return p.fail("demo", err)
	}
	agent, err := parts.Runtime.NewAgent("", sess)
	if err != nil {
		return p.fail("demo", err)
	}
	defer stopAgent(agent)

	reviewer := &demoReviewer{verdicts: story.Reviews, out: p.stdout}
	fmt.Fprintln(p.stdout, lineDemoStart)
	fmt.Fprintln(p.stdout)
	if err := h.serve(ctx, p.stdout, agent, story.User, reviewer.answer); err != nil {
		return p.fail("demo", err)
	}
	fmt.Fprintln(p.stdout)
	if err := checkDemo(sess, model, reviewer, parts.Plan, agent); err != nil {
		fmt.Fprintf(p.stderr, errTurnFailed, err)
		return exitFailure
	}
	if keep {
		fmt.Fprintln(p.stdout, lineDemoKept)
	}
	fmt.Fprintf(p.stdout, lineSessionFile+"\n", sessions.Path(sess.ID()))
	return exitOK
}

// checkDemo confirms the story ran as scripted: every model step and
// review used, the last turn completed, and plan mode left.
func checkDemo(sess host.Session, model *scripted.Model, r *demoReviewer, plan *planmode.Controller, agent host.Agent) error {
	if n := model.Remaining(); n != 0 {
		return fmt.Errorf("%d model steps unused", n)
	}
	if n := len(r.verdicts); n != 0 {
		return fmt.Errorf("%d reviews unused", n)
	}
	if plan == nil {
		return errors.New("plan mode is not enabled")
	}
	if st := plan.Get(agent); st.Active || st.Pending != planmode.SelectionNone {
		return fmt.Errorf("plan mode still on (%+v)", st)
	}
	events := sess.Events()
	for _, e := range events.Backward(events.Len()) {
		if e.Type != host.TypeTurnEnd {
			continue
		}
		if !bytes.Contains(e.Data, []byte(`"reason":"completed"`)) {
			return fmt.Errorf("last turn ended: %s", e.Data)
		}
		return nil
	}
	return errors.New("no turn ended")
}

// demoReviewer answers plan reviews from the story, printing each verdict.
type demoReviewer struct {
	verdicts []demoVerdict
	out      io.Writer
}

func (r *demoReviewer) answer(req host.AskRequest) ([]host.Answer, error) {
	if !isPlanReview(req) || len(req.Questions) != 1 || len(r.verdicts) == 0 {
		return nil, errNoReview
	}
	v := r.verdicts[0]
	r.verdicts = r.verdicts[1:]
	verdict := v.Choice
	if v.Feedback != "" {
		verdict += ": " + v.Feedback
	}
	fmt.Fprintf(r.out, lineReviewer+"\n", verdict)
	return []host.Answer{{QuestionID: req.Questions[0].ID, Selected: []string{v.Choice}, Custom: v.Feedback}}, nil
}

// copyEmbedded writes the files under root in fsys to dir, with ordinary
// permissions (embedded files are read-only).
func copyEmbedded(fsys fs.FS, root, dir string) error {
	return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// stopApp stops the fx app within stopTimeout.
func stopApp(app interface{ Stop(context.Context) error }) {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	_ = app.Stop(ctx)
}

// stopAgent stops the agent within stopTimeout.
func stopAgent(a *refhost.Agent) {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	_ = a.Stop(ctx)
}
