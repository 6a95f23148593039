package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
)

// ErrNoWorkspace means a workspace tool was called for a session that has
// no workspace bound (or without an agent).
var ErrNoWorkspace = errors.New(textNoWorkspace)

// Workspaces gives every ACP session its own workspace, rooted at the
// client's cwd. Its tools (list_files, read_file, search, write_file) are
// registered once with the host; each call runs in the workspace of the
// calling agent's session, confined to that root as [workspace] confines
// it. It is safe for concurrent use.
type Workspaces struct {
	limits workspace.Limits
	opts   []workspace.Option

	mu    sync.RWMutex
	bound map[string]*binding // by session ID
}

type binding struct {
	root string
	ws   *workspace.Workspace
}

// NewWorkspaces returns an empty set of workspaces whose tools use limits
// (zero fields take the workspace package's defaults) and opts; pass
// [workspace.WithForbidden] with the host's state directories so that no
// tool touches them, whatever a session's root.
func NewWorkspaces(limits workspace.Limits, opts ...workspace.Option) *Workspaces {
	return &Workspaces{limits: limits, opts: opts, bound: map[string]*binding{}}
}

// Tools returns the routing tools, sorted by name, to register with the
// host before any session is bound.
func (w *Workspaces) Tools() []host.Tool {
	// The definitions do not depend on a root: take them from an unopened
	// workspace, whose tools are never executed.
	defs := new(workspace.Workspace).Tools()
	tools := make([]host.Tool, len(defs))
	for i, t := range defs {
		tools[i] = routed{w: w, def: t.Definition(), index: i}
	}
	return tools
}

// Bind opens root as the workspace of session id, replacing an earlier
// binding. root must be an absolute path to a directory.
func (w *Workspaces) Bind(id, root string) error {
	if !filepath.IsAbs(root) {
		return fmt.Errorf(errBadCwd, root)
	}
	ws, err := workspace.Open(root, w.limits, w.opts...)
	if err != nil {
		return fmt.Errorf(errBadCwd+": %w", root, err)
	}
	w.mu.Lock()
	old := w.bound[id]
	w.bound[id] = &binding{root: filepath.Clean(root), ws: ws}
	w.mu.Unlock()
	if old != nil {
		old.ws.Close()
	}
	return nil
}

// Root returns the root bound to session id.
func (w *Workspaces) Root(id string) (string, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	b, ok := w.bound[id]
	if !ok {
		return "", false
	}
	return b.root, true
}

// Unbind closes the workspace of session id, if any.
func (w *Workspaces) Unbind(id string) {
	w.mu.Lock()
	b := w.bound[id]
	delete(w.bound, id)
	w.mu.Unlock()
	if b != nil {
		b.ws.Close()
	}
}

// Close closes every workspace.
func (w *Workspaces) Close() error {
	w.mu.Lock()
	bound := w.bound
	w.bound = map[string]*binding{}
	w.mu.Unlock()
	for _, b := range bound {
		b.ws.Close()
	}
	return nil
}

func (w *Workspaces) tool(call host.CallContext, index int) (host.Tool, error) {
	if call.Agent == nil || call.Agent.Session() == nil {
		return nil, ErrNoWorkspace
	}
	w.mu.RLock()
	b, ok := w.bound[call.Agent.Session().ID()]
	w.mu.RUnlock()
	if !ok {
		return nil, ErrNoWorkspace
	}
	return b.ws.Tools()[index], nil
}

// routed is one workspace tool whose calls run in the calling session's
// workspace.
type routed struct {
	w     *Workspaces
	def   host.ToolDefinition
	index int
}

func (t routed) Definition() host.ToolDefinition { return t.def }

func (t routed) Execute(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	tool, err := t.w.tool(call, t.index)
	if err != nil {
		return "", err
	}
	return tool.Execute(ctx, call, input)
}

// current returns the content of the file a write_file input names, as the
// workspace's read_file reads it, or nil when it cannot be read (a new
// file, say). It shows the client what a write replaces.
func (w *Workspaces) current(id string, input json.RawMessage) *string {
	var in struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(input, &in) != nil || in.Path == "" {
		return nil
	}
	w.mu.RLock()
	b, ok := w.bound[id]
	w.mu.RUnlock()
	if !ok {
		return nil
	}
	for _, t := range b.ws.ReadOnlyTools() {
		if t.Definition().Name != workspace.ReadFileName {
			continue
		}
		arg, _ := json.Marshal(map[string]string{"path": in.Path})
		out, err := t.Execute(context.Background(), host.CallContext{}, arg)
		if err != nil {
			return nil
		}
		return &out
	}
	return nil
}
