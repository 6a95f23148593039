package planmode

import (
	"encoding/json"
	"slices"

	"github.com/dshgo/planmode/host"
)

// FoldPlanMode returns the plan-mode state recorded in the first end events:
// the active flag of the last valid "plan/mode" event, false when there is
// none. A malformed payload (active missing or not a boolean) is skipped,
// never read as false; the payload check reports it. end is clamped to the
// log.
//
// It scans backwards and decodes only "plan/mode" events, so the cost is the
// distance from end to the last such event.
func FoldPlanMode(events host.Log, end int) bool {
	for i := clampEnd(events, end) - 1; i >= 0; {
		chunk, first := events.ChunkAt(i)
		for j := i - first; j >= 0; j-- {
			e := &chunk[j]
			if e.Type != EventPlanMode {
				continue
			}
			if active, err := decodeMode(e.Data); err == nil {
				return active
			}
		}
		i = first - 1
	}
	return false
}

// FoldTurnOpen reports whether a turn is open after the first end events:
// the latest of "turn/start" and "turn/end" is "turn/start". end is clamped
// to the log. It is the log's idle signal (a turn that is not open is idle, even
// while an agent still reports running), exported for hosts and UIs that
// read a log without a controller, as the benchmarks and the reliability
// checks do.
func FoldTurnOpen(events host.Log, end int) bool {
	for i := clampEnd(events, end) - 1; i >= 0; {
		chunk, first := events.ChunkAt(i)
		for j := i - first; j >= 0; j-- {
			switch chunk[j].Type {
			case host.TypeTurnStart:
				return true
			case host.TypeTurnEnd:
				return false
			}
		}
		i = first - 1
	}
	return false
}

// headerMode is the plan-mode state a request header described.
type headerMode uint8

const (
	// headerUnknown means no request header was recorded yet.
	headerUnknown headerMode = iota
	// headerActive means the header's sections included "plan:policy".
	headerActive
	// headerInactive means the header's sections did not include it.
	headerInactive
)

// String returns "unknown", "active" or "inactive".
func (h headerMode) String() string {
	switch h {
	case headerActive:
		return "active"
	case headerInactive:
		return "inactive"
	default:
		return "unknown"
	}
}

// foldHeaderMode returns the state described by the last "request/header" in
// the first end events: active when its sections include [SectionName]. A
// header whose payload does not decode is skipped. end is clamped to the
// log.
func foldHeaderMode(events host.Log, end int) headerMode {
	for _, e := range events.Backward(end) {
		if e.Type != host.TypeRequestHeader {
			continue
		}
		if h, ok := decodeHeader(e.Data); ok {
			return h
		}
	}
	return headerUnknown
}

func clampEnd(events host.Log, end int) int {
	return min(max(end, 0), events.Len())
}

// decodeHeader reads the mode a request header described.
func decodeHeader(data json.RawMessage) (headerMode, bool) {
	var h struct {
		Sections []string `json:"sections"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return headerUnknown, false
	}
	if slices.Contains(h.Sections, SectionName) {
		return headerActive, true
	}
	return headerInactive, true
}

// isNotice reports whether e is a notice this plugin recorded.
func isNotice(e *host.Event) bool {
	return e.Type == host.TypeUserMessage && e.Source != nil &&
		e.Source.Kind == host.SourcePlugin && e.Source.Plugin == PluginName && e.Source.Form == noticeForm
}
