package refhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/dshgo/planmode/host"
)

// AddToolGuard implements [host.ToolGuards]. Guards run in registration
// order before every tool execution; the first refusal wins.
func (r *Runtime) AddToolGuard(g host.Guard) (func(), error) {
	if g.Check == nil {
		return nil, fmt.Errorf("refhost: tool guard %q: check func is nil: %w", g.Name, ErrBadRegistration)
	}
	g.Tools = slices.Clone(g.Tools)
	return r.guards.Add(g.Name, g, false)
}

// CheckGuards reports, for every registered guard, the tools it names that
// no registered tool has ([host.ErrUnknownGuardedTool]). The runtime runs it
// when it starts serving an agent ([Runtime.NewAgent]); programs may run it
// after registering everything, as a configuration check.
func (r *Runtime) CheckGuards() error {
	var errs []error
	for _, g := range r.guards.All() {
		var unknown []string
		for _, name := range g.Tools {
			if _, ok := r.tools.Get(name); !ok {
				unknown = append(unknown, name)
			}
		}
		if len(unknown) > 0 {
			errs = append(errs, &host.UnknownToolsError{Guard: g.Name, Tools: unknown})
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("refhost: %w", errors.Join(errs...))
	}
	return nil
}

// guard runs the guard chain for one call; a refusal is the error's text.
func (r *Runtime) guard(ctx context.Context, cc host.CallContext, name string, input json.RawMessage) error {
	for _, g := range r.guards.All() {
		if err := runGuard(ctx, g.Check, cc, name, input); err != nil {
			return err
		}
	}
	return nil
}

// runGuard runs one guard, turning a panic into a refusal: a broken guard
// fails closed.
func runGuard(ctx context.Context, g host.ToolGuard, cc host.CallContext, name string, input json.RawMessage) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf(TextGuardPanicked, p)
		}
	}()
	return g(ctx, cc, name, input)
}

// CompactBeforeNextRequest implements [host.Compactor]: before agent's next
// accepted step derives its request, the runtime appends a
// "compaction/summary" event holding summary (right after "step/start"),
// so the transcript the model sees restarts from it. A later call replaces
// a summary not yet appended. The summary lives in memory until then.
func (r *Runtime) CompactBeforeNextRequest(agent host.Agent, summary string) error {
	a, ok := agent.(*Agent)
	if !ok || a == nil || a.rt != r {
		return fmt.Errorf("refhost: compact: %w", ErrNotMyAgent)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.compaction = &summary
	return nil
}

// appendCompaction appends the scheduled summary, if any, and clears it
// unless a newer one was scheduled meanwhile.
func (a *Agent) appendCompaction() error {
	a.mu.Lock()
	s := a.compaction
	a.mu.Unlock()
	if s == nil {
		return nil
	}
	if err := a.emit(host.TypeCompactionSummary, nil, host.CompactionSummary{Summary: *s}); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.compaction == s {
		a.compaction = nil
	}
	return nil
}

var (
	_ host.ToolGuards = (*Runtime)(nil)
	_ host.Compactor  = (*Runtime)(nil)
)

// CallTool runs one tool call as the loop does (the guard chain, then the
// tool) without logging it, and returns its result. Tests and programs use
// it to run a call outside a turn.
func (a *Agent) CallTool(ctx context.Context, call host.ToolCall) host.ToolResult {
	res, _ := a.callTool(ctx, call)
	return res
}
