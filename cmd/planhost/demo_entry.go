package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/planfile"
	"github.com/dshgo/planmode/refhost/scripted"
)

// The second demo scene's embedded inputs.
var (
	//go:embed demo/entry/deploy.yaml
	entryDeployment []byte
	//go:embed demo/entry/script.yaml
	entryScript []byte
	//go:embed demo/entry/story.yaml
	entryStoryYAML []byte
)

// Names and texts of the second scene.
const (
	// sceneEntry names the second scene: the model asks to enter plan mode.
	sceneEntry       = "entry"
	entryDeployName  = "deploy.yaml"
	flagSceneHelp    = "the scene to play: \"\" (the user enters plan mode with /plan) or \"entry\" (the model asks to plan first; the companion plugins)"
	errUnknownScene  = "demo: unknown scene %q (scenes: \"\", \"entry\")\n"
	lineEntryStart   = "planhost demo -scene entry: the model asks to plan first (plan-entry, plan-file, plan-review, plan-gate)"
	lineUserAnswered = "[user] %s"
)

// entryStory is what the second scene's user types and answers.
type entryStory struct {
	User    []string      `yaml:"user"`
	Entries []demoVerdict `yaml:"entries"`
	Reviews []demoVerdict `yaml:"reviews"`
}

func parseEntryStory(data []byte) (entryStory, error) {
	var s entryStory
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

// playEntryDemo plays the second scene in dir: the model asks to enter plan
// mode, the user consents, a gated write is refused while planning, the plan
// is drafted in the plan file, the user approves with comments, and the
// model works.
func (p *program) playEntryDemo(dir string, keep bool) int {
	story, err := parseEntryStory(entryStoryYAML)
	if err != nil {
		return p.fail("demo", err)
	}
	// The plan files live in the demo directory: the deployment's relative
	// dir resolves against the file's directory.
	h, err := p.startDemoHost(dir, demoScene{script: entryScript, deployName: filepath.Join(dir, entryDeployName), deployment: entryDeployment})
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

	user := &entryUser{entries: story.Entries, reviews: story.Reviews, out: p.stdout}
	fmt.Fprintln(p.stdout, lineEntryStart)
	fmt.Fprintln(p.stdout)
	if err := h.serve(ctx, p.stdout, agent, story.User, user.answer); err != nil {
		return p.fail("demo", err)
	}
	fmt.Fprintln(p.stdout)
	if err := checkEntryDemo(sess, model, user, parts.Plan, agent); err != nil {
		fmt.Fprintf(p.stderr, errTurnFailed, err)
		return exitFailure
	}
	if keep {
		fmt.Fprintln(p.stdout, lineDemoKept)
	}
	fmt.Fprintf(p.stdout, lineSessionFile+"\n", sessions.Path(sess.ID()))
	return exitOK
}

// checkEntryDemo confirms the scene ran as scripted: every step and answer
// used, the goal and the approved plan logged, a write refused while
// planning, plan mode left and the last turn completed.
func checkEntryDemo(sess host.Session, model *scripted.Model, u *entryUser, plan *planmode.Controller, agent host.Agent) error {
	if err := checkDemo(sess, model, &demoReviewer{}, plan, agent); err != nil {
		return err
	}
	if n := len(u.entries) + len(u.reviews); n != 0 {
		return fmt.Errorf("%d answers unused", n)
	}
	var goal, approved, refused bool
	for _, e := range sess.Events().All() {
		switch e.Type {
		case planentry.EventGoal:
			goal = true
		case planfile.EventApproved:
			approved = true
		case host.TypeToolResult:
			refused = refused || bytes.Contains(e.Data, []byte(`was not run`))
		}
	}
	if !goal || !approved || !refused {
		return fmt.Errorf("goal logged %v, plan approved %v, write refused %v", goal, approved, refused)
	}
	return nil
}

// entryUser answers the scene's questions from the story: the consent to
// plan mode and the plan review, printing each answer.
type entryUser struct {
	entries, reviews []demoVerdict
	out              io.Writer
}

func (u *entryUser) answer(req host.AskRequest) ([]host.Answer, error) {
	if len(req.Questions) != 1 {
		return nil, errNoReview
	}
	var list *[]demoVerdict
	switch req.Kind {
	case host.AskConsent:
		list = &u.entries
	case host.AskReview:
		list = &u.reviews
	default:
		return nil, errNoReview
	}
	if len(*list) == 0 {
		return nil, errNoReview
	}
	v := (*list)[0]
	*list = (*list)[1:]
	said := v.Choice
	if v.Feedback != "" {
		said += ": " + v.Feedback
	}
	fmt.Fprintf(u.out, lineUserAnswered+"\n", said)
	return []host.Answer{{QuestionID: req.Questions[0].ID, Selected: []string{v.Choice}, Custom: v.Feedback}}, nil
}
