package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost"
)

// Texts of the companion checks.
const (
	// lineUnknownGuarded reports a tool guard naming tools the host does
	// not register: file, line, column, plugin, the unknown names and the
	// registered ones.
	lineUnknownGuarded = "%s:%d:%d: %s: tools: no registered tool is called %s (registered tools: %s)"
	validateDirPattern = "planhost-validate-"
)

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
