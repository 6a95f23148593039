package host

// Compactor is the host's compaction seam: a plugin asks the host to
// restart an agent's transcript from a summary.
//
// The host appends a "compaction/summary" event holding summary before the
// agent's next model request, after the rest of the current tool batch has
// been logged, so that the request that follows sees the summary (and what
// comes after it) instead of the earlier transcript. A later call before
// that request replaces the summary. The log keeps every event: only what
// the model sees restarts.
type Compactor interface {
	// CompactBeforeNextRequest schedules the compaction for agent. It fails
	// when the agent is not one the host runs.
	CompactBeforeNextRequest(agent Agent, summary string) error
}
