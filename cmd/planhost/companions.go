package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dshgo/planmode/cmd/planhost/internal/render"
	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planask"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/planfile"
	"github.com/dshgo/planmode/plangate"
	"github.com/dshgo/planmode/planreview"
	"github.com/dshgo/planmode/plansteps"
	"github.com/dshgo/planmode/refhost"
	"github.com/dshgo/planmode/store"
	"github.com/dshgo/planmode/todo"
)

// Texts of the companion checks.
const (
	// lineUnknownGuarded reports a tool guard naming tools the host does
	// not register: file, line, column, plugin, the unknown names and the
	// registered ones.
	lineUnknownGuarded = "%s:%d:%d: %s: tools: no registered tool is called %s (registered tools: %s)"
	validateDirPattern = "planhost-validate-"
)

// companionPlugins are the companion plugins a deployment file may enable
// next to plan-mode, in any mix: plan-file, plan-entry, plan-ask, plan-review,
// plan-gate, plan-steps and todo. Each one but todo requires plan-mode in
// the same file.
func companionPlugins() []deploy.Plugin {
	return []deploy.Plugin{
		planfile.DeployPlugin(),
		planentry.DeployPlugin(),
		planask.DeployPlugin(),
		planreview.DeployPlugin(),
		plangate.DeployPlugin(),
		plansteps.DeployPlugin(),
		todo.DeployPlugin(),
	}
}

// servingTools returns the tools "planhost run" registers (the workspace's),
// built over an empty temporary directory, so that validate checks the
// deployment against the same tool names. close removes the directory.
func servingTools() (tools []host.Tool, close func(), err error) {
	dir, err := os.MkdirTemp("", validateDirPattern)
	if err != nil {
		return nil, nil, err
	}
	ws, err := workspace.Open(dir, workspace.Limits{})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return ws.Tools(), func() { ws.Close(); os.RemoveAll(dir) }, nil
}

// servingProblems runs the checks the host makes when it starts serving
// (tool guards naming unregistered tools) and returns one line per problem,
// placed at the plugin's entry in the deployment file when it has one.
func servingProblems(file string, dep *deploy.Deployment, rt *refhost.Runtime) []string {
	err := rt.CheckGuards()
	if err == nil {
		return nil
	}
	var registered []string
	for _, d := range rt.Assemble(host.AssembleContext{}).Tools {
		registered = append(registered, d.Name)
	}
	var lines []string
	for _, leaf := range leafErrors(err) {
		var ut *host.UnknownToolsError
		if !errors.As(leaf, &ut) {
			lines = append(lines, fmt.Sprintf(lineGraphError, file, leaf))
			continue
		}
		line, col, ok := dep.Position(ut.Guard)
		if !ok {
			line, col = 1, 1
		}
		lines = append(lines, fmt.Sprintf(lineUnknownGuarded, file, line, col, ut.Guard,
			strings.Join(ut.Tools, ", "), strings.Join(registered, ", ")))
	}
	return lines
}

// leafErrors flattens joined errors.
func leafErrors(err error) []error {
	if u, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range u.Unwrap() {
			out = append(out, leafErrors(e)...)
		}
		return out
	}
	if inner := errors.Unwrap(err); inner != nil {
		if _, ok := inner.(interface{ Unwrap() []error }); ok {
			return leafErrors(inner)
		}
	}
	return []error{err}
}

// companionWidth is the width of the boxes planhost draws.
const companionWidth = 72

// companionView follows a session's events and draws the companions'
// displays: the todo box after each successful todo_write, the step
// progress after each plan-steps event. Its zero value is ready; it folds
// the plan-steps events one at a time, in log order.
type companionView struct {
	steps plansteps.State
	// asks are the ask_user calls waiting for their answer, by call ID.
	asks map[string]planask.Ask
	// plain leaves the terminal styles out (output that is not a terminal);
	// set decides it once, on first use.
	plain, set bool
	// words are the boxes' words (nil: English).
	words *render.Words
}

// Show folds e and returns what to print after it, or "".
func (v *companionView) Show(e host.Event) string {
	switch e.Type {
	case planask.EventAsk, planask.EventAnswer:
		return v.showAsk(e)
	case plansteps.EventSteps, plansteps.EventStepCompleted, plansteps.EventStepModified, plansteps.EventCompleted:
		v.steps = plansteps.Apply(v.steps, e)
		return v.style(v.wordsOf().StepsANSI(shownSteps(v.steps.Plan), companionWidth))
	case host.TypeToolResult:
		var r host.ToolResult
		if json.Unmarshal(e.Data, &r) != nil || r.IsError || r.Name != todo.WriteToolName {
			return ""
		}
		l, err := todo.ParseList([]byte(r.Output))
		if err != nil {
			return ""
		}
		return v.style(v.wordsOf().TodoANSI(l.Todos, companionWidth))
	}
	return ""
}

// wordsOf is the view's words, English by default.
func (v *companionView) wordsOf() *render.Words {
	if v.words == nil {
		return render.English
	}
	return v.words
}

func (v *companionView) style(box string) string {
	box = strings.TrimRight(box, "\n")
	if v.plain {
		return render.Plain(box)
	}
	return box
}

// boxedTool reports whether a tool's call is followed by a companion's box
// that shows what it did (the todo list, the steps, a changed step whose
// reason the step-change question showed); the terminal UI
// leaves out its arguments and its result, text for the model, unless
// -verbose.
func boxedTool(name string) bool {
	switch name {
	case todo.WriteToolName, plansteps.StepCompleteToolName, plansteps.ModifyToolName, plansteps.CompleteToolName:
		return true
	}
	return false
}

// answeredTool reports whether a companion tool's result is text for the
// model about what the user already saw or answered: the consent to plan,
// the clarifying questions (their answers are shown), the
// plan file (the review shows it). The terminal UI leaves it out unless
// -verbose, like the results of the boxed tools.
func answeredTool(name string) bool {
	switch name {
	case planentry.ToolName, planask.ToolName, planfile.WriteToolName:
		return true
	}
	return boxedTool(name)
}

// showCompanions prints the companions' display after e, if any. On first
// use it folds the log before e (a resumed session's earlier plan).
func (p *printer) showCompanions(e host.Event, events func() host.Log) {
	ui, styled := p.out.(*entrySink)
	if !p.companions.set {
		// Styles go only to the terminal UI; the writer sink (pipes, the
		// demo) prints no escape sequences.
		p.companions.plain, p.companions.set = !styled, true
		if p.cat != nil {
			p.companions.words = render.WordsFor(p.cat.Lang)
		}
		if log := events(); e.Seq > 0 && int(e.Seq) <= log.Len() {
			p.companions.steps = plansteps.Fold(log.Prefix(int(e.Seq) - 1))
		}
	}
	if s := p.companions.Show(e); s != "" {
		if styled {
			ui.styledLine(s)
			return
		}
		p.println(s)
	}
}

// documentsOrMemory returns docs, or an in-memory store when it is nil.
func documentsOrMemory(docs host.Documents) host.Documents {
	if docs == nil {
		return store.NewMemoryDocuments()
	}
	return docs
}

// Agent-scoped documents of "planhost run".
const (
	// defaultAgentID names the agent of "planhost run": one agent across
	// sessions, so that its todo list carries over.
	defaultAgentID = "planhost"
	// documentsDirName is the documents directory under the state
	// directory.
	documentsDirName = "documents"
)

// settleDocuments resolves the documents directory of "planhost run" and
// keeps it apart from the workspace like the other state directories: the
// model's write_file must never reach the agent's documents. It returns
// forbidden with the documents directory added.
func settleDocuments(f *runFlags, stateDir string, stateErr error, forbidden []string) ([]string, error) {
	return settleDocumentsDir(f.store, &f.documents, f.workspace, stateDir, stateErr, forbidden)
}

// settleDocumentsDir resolves *documents for the session store storeValue
// (-store): with the file store, the default directory under the state
// directory when none is given (none, for documents in memory, when no
// state directory is known either), kept apart from workspace unless that
// is "" (the ACP agent's workspaces come with each session and are kept
// out by forbidden); with PostgreSQL the documents live in the database,
// so a directory is a usage error. It returns forbidden with the
// directory added.
func settleDocumentsDir(storeValue string, documents *string, workspace string, stateDir string, stateErr error, forbidden []string) ([]string, error) {
	if storeValue != storeFile {
		if *documents != "" {
			return nil, fmt.Errorf(errDocumentsWithDatabase, *documents)
		}
		return forbidden, nil
	}
	if *documents == "" {
		if stateErr != nil {
			return forbidden, nil
		}
		*documents = filepath.Join(stateDir, appDirName, documentsDirName)
	}
	if workspace != "" {
		if err := checkApart(workspace, []stateLocation{{stateWhatDocuments, *documents}}); err != nil {
			return nil, err
		}
	}
	return append(forbidden, *documents), nil
}

// openDocuments opens the documents directory dir; "" keeps the documents
// in memory.
func openDocuments(dir string) (host.Documents, error) {
	if dir == "" {
		return store.NewMemoryDocuments(), nil
	}
	docs, err := store.OpenDirDocuments(dir)
	if err != nil {
		return nil, fmt.Errorf("-documents: %w", err)
	}
	return docs, nil
}
