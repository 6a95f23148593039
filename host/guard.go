package host

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
)

// ToolGuard checks one tool call before the host executes it. A nil error
// lets the call go on; an error refuses it: the tool never runs, and the
// model gets an is-error result reading ToolErrorPrefix + err.Error(),
// logged like any tool result. ctx carries the call's cancellation. A guard
// must be fast and must not call the tool itself.
type ToolGuard func(ctx context.Context, call CallContext, name string, input json.RawMessage) error

// Guard is one registered tool guard.
type Guard struct {
	// Name identifies the guard, usually its plugin's name.
	Name string
	// Check is run for every tool call, before the tool executes.
	Check ToolGuard
	// Tools names the tools the guard is about. The host checks, when it
	// starts serving (before an agent's first step), that every one is a
	// registered tool, and refuses to serve otherwise, naming the unknown
	// ones ([ErrUnknownGuardedTool]). It may be empty.
	Tools []string
}

// ToolGuards is the host's tool-guard chain. The host runs every guard, in
// registration order, before each tool execution, and stops at the first
// refusal. Guards see calls to every tool, including unknown ones (which
// the host then answers with its own error). A host that runs no tools may
// offer no chain; plugins that need one then fail to start.
type ToolGuards interface {
	// AddToolGuard registers g under g.Name; a name already taken is
	// ErrDuplicate.
	AddToolGuard(g Guard) (unregister func(), err error)
}

// ErrUnknownGuardedTool means a guard names a tool that no registered tool
// has, once the host starts serving.
var ErrUnknownGuardedTool = errors.New("a tool guard names tools that are not registered")

// UnknownToolsError is the error a host gives for one guard that names
// tools no registered tool has; it is [ErrUnknownGuardedTool] for
// errors.Is. A host joins one per such guard.
type UnknownToolsError struct {
	// Guard is the guard's name.
	Guard string
	// Tools are the unknown names, in the guard's order.
	Tools []string
}

// Error names the guard and the unknown tools.
func (e *UnknownToolsError) Error() string {
	return e.Guard + ": " + ErrUnknownGuardedTool.Error() + ": " + strings.Join(e.Tools, ", ")
}

// Is reports target == ErrUnknownGuardedTool.
func (e *UnknownToolsError) Is(target error) bool { return target == ErrUnknownGuardedTool }
