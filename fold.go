package planmode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/dshgo/planmode/host"
)

// Canonical payloads, as encoding/json writes [ModePayload]; the folds
// compare against them before falling back to a full JSON decode.
const (
	payloadActive   = `{"active":true}`
	payloadInactive = `{"active":false}`
)

// Canonical payloads of [EventPlanCancel], as encoding/json writes
// [CancelPayload].
const (
	payloadCancelActive   = `{"cancelled":"active"}`
	payloadCancelInactive = `{"cancelled":"inactive"}`
)

// FoldPlanMode returns the plan-mode state recorded in events[:end]: the
// active flag of the last valid "plan/mode" event, false when there is none.
// A malformed payload (active missing or not a boolean) is skipped, never
// read as false; the payload check reports it. end is clamped to the slice.
//
// It scans backwards and decodes only "plan/mode" events, so the cost is the
// distance from end to the last such event.
func FoldPlanMode(events []host.Event, end int) bool {
	for i := clampEnd(events, end) - 1; i >= 0; i-- {
		e := &events[i]
		if e.Type != EventPlanMode {
			continue
		}
		if active, err := decodeMode(e.Data); err == nil {
			return active
		}
	}
	return false
}

// FoldTurnOpen reports whether a turn is open at events[:end]: the latest
// of "turn/start" and "turn/end" is "turn/start". end is clamped to the
// slice.
func FoldTurnOpen(events []host.Event, end int) bool {
	for i := clampEnd(events, end) - 1; i >= 0; i-- {
		switch events[i].Type {
		case host.TypeTurnStart:
			return true
		case host.TypeTurnEnd:
			return false
		}
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
// events[:end]: active when its sections include [SectionName]. A header
// whose payload does not decode is skipped. end is clamped to the slice.
func foldHeaderMode(events []host.Event, end int) headerMode {
	for i := clampEnd(events, end) - 1; i >= 0; i-- {
		if events[i].Type != host.TypeRequestHeader {
			continue
		}
		if h, ok := decodeHeader(events[i].Data); ok {
			return h
		}
	}
	return headerUnknown
}

func clampEnd(events []host.Event, end int) int {
	return min(max(end, 0), len(events))
}

// decodeMode reads a plan/mode payload. The error describes the problem
// without naming the event; the payload check adds that.
func decodeMode(data json.RawMessage) (bool, error) {
	switch {
	case string(data) == payloadActive:
		return true, nil
	case string(data) == payloadInactive:
		return false, nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return false, errors.New(problemEmpty)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return false, fmt.Errorf(problemNotObject, quoteJSON(data))
	}
	raw, ok := fields["active"]
	if !ok {
		return false, errors.New(problemActiveMissing)
	}
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf(problemActiveNotBool, quoteJSON(raw))
}

// decodeCancel reads a plan/cancel payload: the selection it withdraws. The
// error describes the problem without naming the event; the payload check
// adds that.
func decodeCancel(data json.RawMessage) (Selection, error) {
	switch {
	case string(data) == payloadCancelActive:
		return SelectionActive, nil
	case string(data) == payloadCancelInactive:
		return SelectionInactive, nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return SelectionNone, errors.New(problemCancelEmpty)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return SelectionNone, fmt.Errorf(problemCancelNotObject, quoteJSON(data))
	}
	raw, ok := fields["cancelled"]
	if !ok {
		return SelectionNone, errors.New(problemCancelMissing)
	}
	var name string
	if json.Unmarshal(raw, &name) == nil {
		switch name {
		case SelectionActive.String():
			return SelectionActive, nil
		case SelectionInactive.String():
			return SelectionInactive, nil
		}
	}
	return SelectionNone, fmt.Errorf(problemCancelBad, quoteJSON(raw))
}

// quoteJSON renders raw JSON for an error message, shortened when long.
func quoteJSON(raw []byte) string {
	const limit = 64
	s := string(bytes.TrimSpace(raw))
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
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
		e.Source.Kind == host.SourcePlugin && e.Source.Plugin == PluginName && e.Source.Form == NoticeForm
}
