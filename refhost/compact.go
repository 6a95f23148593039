package refhost

import (
	"context"
	"fmt"

	"github.com/dshgo/planmode/host"
)

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

var _ host.Compactor = (*Runtime)(nil)

// CallTool runs one tool call as the loop does (the guard chain, then the
// tool) without logging it, and returns its result. Tests and programs use
// it to run a call outside a turn.
func (a *Agent) CallTool(ctx context.Context, call host.ToolCall) host.ToolResult {
	res, _ := a.callTool(ctx, call)
	return res
}
