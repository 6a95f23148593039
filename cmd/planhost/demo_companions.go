package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
	"github.com/dshgo/planmode/todo"
)

// The companions demo's embedded inputs.
var (
	//go:embed demo/companions/deploy.yaml
	companionsDeployment []byte
	//go:embed demo/companions/script.yaml
	companionsScript []byte
)

// The companions demo's fixed names.
const (
	companionsDeploymentName = "demo/companions/deploy.yaml"
	companionsAgentID        = "demo-agent"
	companionsDirPattern     = "planhost-companions-"
	companionsDocumentsDir   = "documents"
)

// The companions demo's user: what they type in each session.
var companionsUser = [][]string{
	{"/plan Add a Goodbye function next to Hello, with a test."},
	{"Anything left on your list from last time?"},
}

// demoCompanions is "planhost demo-companions": a scripted scene of the
// companion plugins. In session 1 a plan is approved with steps, executed
// with verifications, one step is changed with the user's approval and the
// plan is completed; in session 2 the same agent picks up its todo list.
func (p *program) demoCompanions(args []string) int {
	fs := flag.NewFlagSet("demo-companions", flag.ContinueOnError)
	keep := fs.Bool("keep", false, flagKeepHelp)
	if code, done := p.parseFlags(fs, usageDemoCompanions, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(p.stderr, errExtraArgs, "demo-companions", fs.Args())
		return exitUsage
	}
	dir, err := os.MkdirTemp(p.tempDir, companionsDirPattern)
	if err != nil {
		return p.fail("demo-companions", err)
	}
	code := p.playCompanions(dir)
	if !*keep {
		if err := os.RemoveAll(dir); err != nil {
			return p.fail("demo-companions", err)
		}
		fmt.Fprintln(p.stdout, lineDemoRemoved)
	}
	return code
}

func (p *program) playCompanions(dir string) int {
	docs, err := store.OpenDirDocuments(filepath.Join(dir, companionsDocumentsDir))
	if err != nil {
		return p.fail("demo-companions", err)
	}
	h, err := p.startDemoHost(dir, demoScene{script: companionsScript, deployName: companionsDeploymentName, deployment: companionsDeployment, documents: docs})
	if err != nil {
		return p.fail("demo-companions", err)
	}
	defer h.close()
	sessions, parts, model := h.sessions, h.parts, h.model
	ctx := context.Background()
	fmt.Fprintln(p.stdout, lineCompanionsStart)
	var files []string
	var last host.Session
	for i, lines := range companionsUser {
		fmt.Fprintf(p.stdout, "\n"+lineCompanionsSession+"\n\n", i+1, companionsAgentID)
		sess, err := sessions.Create("")
		if err != nil {
			return p.fail("demo-companions", err)
		}
		agent, err := parts.Runtime.NewAgent(companionsAgentID, sess)
		if err != nil {
			return p.fail("demo-companions", err)
		}
		err = h.serve(ctx, p.stdout, agent, lines, companionsReviewer(p))
		stopAgent(agent)
		if err != nil {
			return p.fail("demo-companions", err)
		}
		files = append(files, sessions.Path(sess.ID()))
		last = sess
		if i == 0 {
			if err := checkCompanionsPlan(sess); err != nil {
				fmt.Fprintf(p.stderr, errTurnFailed, err)
				return exitFailure
			}
		}
	}
	if err := checkCompanionsEnd(ctx, model, docs, last); err != nil {
		fmt.Fprintf(p.stderr, errTurnFailed, err)
		return exitFailure
	}
	fmt.Fprintln(p.stdout)
	for _, f := range files {
		fmt.Fprintf(p.stdout, lineSessionFile+"\n", f)
	}
	return exitOK
}

// companionsReviewer approves every plan and every step change, printing
// each answer.
func companionsReviewer(p *program) func(host.AskRequest) ([]host.Answer, error) {
	return func(req host.AskRequest) ([]host.Answer, error) {
		if len(req.Questions) != 1 || req.Kind == host.AskClarify {
			return nil, errNoReview
		}
		var choice string
		for _, o := range req.Questions[0].Options {
			if o.Role == host.RoleApprove {
				choice = o.Label
				break
			}
		}
		if choice == "" {
			return nil, errNoReview
		}
		fmt.Fprintf(p.stdout, lineReviewer+"\n", choice)
		return []host.Answer{{QuestionID: req.Questions[0].ID, Selected: []string{choice}}}, nil
	}
}

// checkCompanionsPlan confirms session 1 ran as scripted: the plan's three
// steps done, one changed, the plan completed.
func checkCompanionsPlan(sess host.Session) error {
	s := plansteps.Fold(sess.Events())
	switch {
	case s.Plan == nil:
		return errors.New("no plan/steps")
	case !s.Plan.Done || s.Plan.Completed() != len(s.Plan.Steps) || len(s.Plan.Steps) != 3:
		return fmt.Errorf("plan not completed: %+v", s.Plan)
	case s.Plan.Steps[1].Modified != 1:
		return errors.New("step 2 was not changed")
	}
	return nil
}

// checkCompanionsEnd confirms every model step ran and the agent's list
// ended as a clean slate of the two items written completed.
func checkCompanionsEnd(ctx context.Context, model *scripted.Model, docs host.Documents, last host.Session) error {
	if n := model.Remaining(); n != 0 {
		return fmt.Errorf("%d model steps unused", n)
	}
	doc, err := docs.Get(ctx, companionsAgentID, todo.DocumentName)
	if err != nil {
		return err
	}
	l, err := todo.ParseList(doc.Data)
	if err != nil {
		return err
	}
	if len(l.Todos) != 2 || l.Todos[0].Status != todo.StatusCompleted || l.Todos[1].Status != todo.StatusCompleted {
		return fmt.Errorf("todo list %+v", l.Todos)
	}
	if last == nil || last.Len() == 0 {
		return errors.New("no second session")
	}
	return nil
}
