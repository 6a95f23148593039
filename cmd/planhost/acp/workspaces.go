package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
)

// Errors of the routing tools.
var (
	// ErrNoWorkspace means a workspace tool was called for a session that
	// has no workspace bound (or without an agent).
	ErrNoWorkspace = errors.New(textNoWorkspace)
	// ErrProtected means write_file was asked to write into a directory the
	// host keeps its state in (the session files), which lies inside the
	// workspace.
	ErrProtected = errors.New(textProtected)
)

// Workspaces gives every ACP session its own workspace, rooted at the
// client's cwd. Its tools (list_files, read_file, search, write_file) are
// registered once with the host; each call runs in the workspace of the
// calling agent's session, confined to that root as [workspace] confines
// it. It is safe for concurrent use.
type Workspaces struct {
	limits  workspace.Limits
	protect []string // resolved directories write_file never writes into

	mu    sync.RWMutex
	bound map[string]*binding // by session ID
}

type binding struct {
	root string
	ws   *workspace.Workspace
}

// NewWorkspaces returns an empty set of workspaces whose tools use limits
// (zero fields take the workspace package's defaults). write_file refuses
// to write into the protect directories (the host's state, such as the
// session files) when a workspace contains them, through symbolic links
// too.
func NewWorkspaces(limits workspace.Limits, protect ...string) *Workspaces {
	w := &Workspaces{limits: limits, bound: map[string]*binding{}}
	for _, p := range protect {
		if abs, err := filepath.Abs(p); err == nil {
			w.protect = append(w.protect, resolve(abs))
		}
	}
	return w
}

// resolve returns p with symbolic links evaluated, as far as p exists.
func resolve(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// checkWrite refuses a write_file input whose path resolves into a
// protected directory.
func (w *Workspaces) checkWrite(root string, input json.RawMessage) error {
	if len(w.protect) == 0 {
		return nil
	}
	var in struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil // the tool itself reports bad input
	}
	rel, err := workspace.CleanPath(in.Path)
	if err != nil {
		return nil // the tool itself refuses it
	}
	target := resolve(filepath.Join(root, filepath.FromSlash(rel)))
	for _, p := range w.protect {
		if within(target, p) {
			return fmt.Errorf("%s: %w", in.Path, ErrProtected)
		}
	}
	return nil
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
	ws, err := workspace.Open(root, w.limits)
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

func (w *Workspaces) tool(call host.CallContext, index int) (host.Tool, string, error) {
	if call.Agent == nil || call.Agent.Session() == nil {
		return nil, "", ErrNoWorkspace
	}
	w.mu.RLock()
	b, ok := w.bound[call.Agent.Session().ID()]
	w.mu.RUnlock()
	if !ok {
		return nil, "", ErrNoWorkspace
	}
	return b.ws.Tools()[index], b.root, nil
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
	tool, root, err := t.w.tool(call, t.index)
	if err != nil {
		return "", err
	}
	if t.def.Name == workspace.WriteFileName {
		if err := t.w.checkWrite(root, input); err != nil {
			return "", err
		}
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
