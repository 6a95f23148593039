package wiring

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.uber.org/fx"
	"gopkg.in/yaml.v3"

	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/planfile"
)

// Where planhost keeps its state by default, under the user's state
// directory.
const (
	AppDir       = "planhost"
	SessionsDir  = "sessions"
	DocumentsDir = "documents"
)

// Where the state and the workspace meet.
const (
	errStateInWorkspace = "the %s %s is inside the workspace %s, where the model's write_file could rewrite it; " +
		"pass -sessions DIR outside the workspace, or -workspace DIR that does not contain it"
	errWorkspaceInState = "the workspace %s is inside the %s %s, where planhost keeps its own files; " +
		"pass -workspace DIR outside it"
	errPlansInWorkspace = "the plan directory %s (plan-file's dir in %s) is inside the workspace %s, where the model's " +
		"write_file could rewrite a plan while the user reviews it; set plan-file's dir outside the workspace, " +
		"or pass -workspace DIR that does not contain it"
	errWorkspaceInPlans = "the workspace %s is inside the plan directory %s (plan-file's dir in %s), where planhost " +
		"keeps the plans under review; pass -workspace DIR outside it"
	errDocumentsWithDatabase = "-documents %s: the agent documents live in the -store database; leave -documents out"

	whatSessions  = "sessions directory"
	whatState     = "state directory"
	whatPlans     = "plan directory"
	whatDocuments = "documents directory"
)

// SettleState settles where a session's state goes: *sessions defaults
// to the sessions directory under stateDir (an error when there is no
// state directory, stateErr), and the workspace must lie apart from it and
// from planhost's state directory. It returns the directories the
// workspace tools must never touch.
func SettleState(sessions *string, workspace, stateDir string, stateErr error) ([]string, error) {
	if stateErr != nil && *sessions == "" {
		return nil, stateErr
	}
	if *sessions == "" {
		*sessions = filepath.Join(stateDir, AppDir, SessionsDir)
	}
	state := []location{{whatSessions, *sessions}}
	if stateErr == nil {
		state = append(state, location{whatState, filepath.Join(stateDir, AppDir)})
	}
	if err := checkApart(workspace, state); err != nil {
		return nil, err
	}
	forbidden := make([]string, 0, len(state))
	for _, s := range state {
		forbidden = append(forbidden, s.dir)
	}
	return forbidden, nil
}

// SettleDocuments resolves *documents for the session store storeValue
// (-store): with the file store, the default directory under the state
// directory when none is given (none, for documents in memory, when no
// state directory is known either), kept apart from workspace unless that
// is "" (the ACP agent's workspaces come with each session and are kept
// out by forbidden); with PostgreSQL the documents live in the database,
// so a directory is a usage error. It returns forbidden with the
// directory added.
func SettleDocuments(storeValue string, documents *string, workspace, stateDir string, stateErr error, forbidden []string) ([]string, error) {
	if storeValue != StoreFile {
		if *documents != "" {
			return nil, fmt.Errorf(errDocumentsWithDatabase, *documents)
		}
		return forbidden, nil
	}
	if *documents == "" {
		if stateErr != nil {
			return forbidden, nil
		}
		*documents = filepath.Join(stateDir, AppDir, DocumentsDir)
	}
	if workspace != "" {
		if err := checkApart(workspace, []location{{whatDocuments, *documents}}); err != nil {
			return nil, err
		}
	}
	return append(forbidden, *documents), nil
}

// location is a directory where planhost keeps its own state, which the
// model's workspace must not hold.
type location struct {
	what string // for messages: "sessions directory", "state directory"
	dir  string
}

// checkApart refuses a workspace that holds one of the state directories,
// or lies inside one: the model's write_file could otherwise rewrite the
// session logs (and plant an approval a resume would apply). Symbolic links
// are resolved as far as the paths exist.
func checkApart(workspace string, state []location) error {
	ws, err := realPath(workspace)
	if err != nil {
		return fmt.Errorf("-workspace: %w", err)
	}
	for _, s := range state {
		dir, err := realPath(s.dir)
		if err != nil {
			return fmt.Errorf("%s %s: %w", s.what, s.dir, err)
		}
		switch {
		case within(dir, ws):
			return fmt.Errorf(errStateInWorkspace, s.what, s.dir, workspace)
		case within(ws, dir):
			return fmt.Errorf(errWorkspaceInState, workspace, s.what, s.dir)
		}
	}
	return nil
}

// realPath returns p as an absolute path with its symbolic links resolved,
// as far as it exists (the missing rest is appended as it is).
func realPath(p string) (string, error) { return realPathN(p, maxLinks) }

// maxLinks bounds the dangling links realPath follows.
const maxLinks = 40

func realPathN(p string, links int) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	cur, rest := abs, ""
	for {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		// A dangling link: where it points is where the directory would
		// be made.
		if target, lerr := os.Readlink(cur); lerr == nil && links > 0 {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			return realPathN(filepath.Join(target, rest), links-1)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within reports whether path is dir or lies below it (both clean and
// absolute).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Deployment is a loaded deployment and, when it enables plan-file, the
// plan directory it configures: planhost keeps the workspace apart from
// it and the workspace tools out of it, as from its own state.
type Deployment struct {
	*deploy.Deployment
	// PlanDir is plan-file's directory; "" without plan-file.
	PlanDir string
}

// LoadDeployment loads the deployment file at path with the offered
// plugins and notes its plan directory.
func LoadDeployment(path string) (Deployment, error) {
	var dir string
	dep, err := deploy.Load(path, pluginsNoting(&dir)...)
	return Deployment{Deployment: dep, PlanDir: dir}, err
}

// ParseDeployment is LoadDeployment for a deployment held in memory; name
// stands for its file (relative directories resolve against it).
func ParseDeployment(name string, data []byte) (Deployment, error) {
	var dir string
	dep, err := deploy.Parse(name, data, pluginsNoting(&dir)...)
	return Deployment{Deployment: dep, PlanDir: dir}, err
}

// pluginsNoting is Plugins with plan-file's entry noting the plan
// directory of the configuration it loads in *planDir.
func pluginsNoting(planDir *string) []deploy.Plugin {
	plugins := Plugins()
	for i, p := range plugins {
		if p.Name != planfile.PluginName {
			continue
		}
		load := p.LoadFile
		plugins[i].LoadFile = func(file string, node *yaml.Node) (fx.Option, error) {
			opt, err := load(file, node)
			if err != nil {
				return nil, err
			}
			cfg, err := planfile.DecodeConfig(file, node)
			if err != nil {
				return nil, err
			}
			*planDir = cfg.Dir
			return opt, nil
		}
	}
	return plugins
}

// CheckPlansApart refuses a workspace that holds the plan directory, or
// lies inside it: the model's write_file could otherwise rewrite a plan
// while the user reviews it. Symbolic links are resolved as far as the
// paths exist. No plan directory ("") passes.
func CheckPlansApart(workspace, planDir, deployFile string) error {
	if planDir == "" {
		return nil
	}
	ws, err := realPath(workspace)
	if err != nil {
		return fmt.Errorf("-workspace: %w", err)
	}
	dir, err := realPath(planDir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", whatPlans, planDir, err)
	}
	switch {
	case within(dir, ws):
		return fmt.Errorf(errPlansInWorkspace, planDir, deployFile, workspace)
	case within(ws, dir):
		return fmt.Errorf(errWorkspaceInPlans, workspace, planDir, deployFile)
	}
	return nil
}
