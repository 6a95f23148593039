package planmode

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/dshgo/planmode/host"
)

// FoldPlanMode returns the active flag of the last valid "plan/mode" event
// in the first end events (clamped), false when there is none. A malformed
// payload is skipped, never read as false. It scans backwards from end.
func FoldPlanMode(events host.Log, end int) bool {
	for _, e := range events.Backward(min(max(end, 0), events.Len())) {
		if e.Type != EventPlanMode {
			continue
		}
		if active, err := decodeMode(e.Data); err == nil {
			return active
		}
	}
	return false
}

// decodeHeader reads the mode a request header described: active when its
// sections include SectionName.
func decodeHeader(data json.RawMessage) (Selection, bool) {
	var h struct {
		Sections []string `json:"sections"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return SelectionNone, false
	}
	return selectionOf(slices.Contains(h.Sections, SectionName)), true
}

// isNotice reports whether e is a notice this plugin recorded.
func isNotice(e *host.Event) bool {
	return e.Type == host.TypeUserMessage && e.Source != nil &&
		e.Source.Kind == host.SourcePlugin && e.Source.Plugin == PluginName && e.Source.Form == noticeForm
}

// view is the plan-mode state folded from a log one event at a time, in
// order. Positions count events from 1, as Seq does.
type view struct {
	n         int       // how many events were applied
	active    bool      // last valid plan/mode
	turnOpen  bool      // latest of turn/start and turn/end is turn/start
	header    Selection // what the last request header described; SelectionNone before the first
	announced Selection // the state named by the last notice since that header
	sel       Selection // last made completed /plan or approved exit not yet followed by plan/mode or plan/cancel
	selExit   bool      // sel comes from an approved exit
	selAt     int       // when sel was made: the position of its command/run or tool/result
	selCall   string    // the call ID of the approved exit that made sel
	cut       int       // the position of the last valid plan/mode or plan/cancel
	runs      map[string]planRun
	calls     map[string]int // exit_plan_mode tool/call ID → its position, until its tool/result
}

// planRun is a "/plan" command/run waiting for its command/done.
type planRun struct {
	sel Selection
	at  int // the position of the command/run
}

// quotedExitTool filters tool calls and results cheaply: encoding/json
// never escapes the tool name's plain ASCII.
var quotedExitTool = []byte(`"` + ExitToolName + `"`)

// applyAll applies every event of events in order.
func (v *view) applyAll(events host.Log) {
	for _, e := range events.All() {
		v.apply(&e)
	}
}

// apply folds the next event of the log into the view.
func (v *view) apply(e *host.Event) {
	v.n++
	switch e.Type {
	case EventPlanMode:
		if active, err := decodeMode(e.Data); err == nil {
			v.active = active
			v.withdraw()
		}
	case EventPlanCancel:
		if checkCancel(e.Data) == nil {
			v.withdraw()
		}
	case host.TypeTurnStart:
		v.turnOpen = true
	case host.TypeTurnEnd:
		v.turnOpen = false
	case host.TypeRequestHeader:
		if h, ok := decodeHeader(e.Data); ok {
			v.header, v.announced = h, SelectionNone
		}
	case host.TypeUserMessage:
		if isNotice(e) {
			v.announced = selectionOf(v.active)
		}
	case host.TypeCommandRun:
		var run host.CommandRun
		if json.Unmarshal(e.Data, &run) != nil || run.Name != CommandName {
			return
		}
		if v.runs == nil {
			v.runs = map[string]planRun{}
		}
		v.runs[run.ID] = planRun{sel: selectionForArgs(run.Args), at: v.n}
	case host.TypeCommandDone:
		var done host.CommandDone
		if len(v.runs) == 0 || json.Unmarshal(e.Data, &done) != nil {
			return
		}
		r, ok := v.runs[done.ID]
		if !ok {
			return
		}
		delete(v.runs, done.ID)
		// A run before the last plan/mode or plan/cancel was superseded by
		// it; one before the selection last made is older than that one.
		if done.OK && r.at > v.cut && r.at > v.selAt {
			v.sel, v.selExit, v.selAt = r.sel, false, r.at
		}
	case host.TypeToolCall:
		var call host.ToolCall
		if !bytes.Contains(e.Data, quotedExitTool) || json.Unmarshal(e.Data, &call) != nil || call.Name != ExitToolName {
			return
		}
		if v.calls == nil {
			v.calls = map[string]int{}
		}
		v.calls[call.ID] = v.n
	case host.TypeToolResult:
		var res host.ToolResult
		if !bytes.Contains(e.Data, quotedExitTool) || json.Unmarshal(e.Data, &res) != nil || res.Name != ExitToolName {
			return
		}
		// The exit was approved while the call ran, after its tool/call:
		// a plan/mode or plan/cancel logged since then withdrew it.
		at, called := v.calls[res.CallID]
		delete(v.calls, res.CallID)
		if res.IsError && v.selExit && res.CallID == v.selCall {
			// A host that could not record the approval wrote this
			// is-error result later: the approval does not count.
			v.sel, v.selExit, v.selCall = SelectionNone, false, ""
			return
		}
		if res.IsError || called && at <= v.cut {
			return
		}
		v.sel, v.selExit, v.selAt, v.selCall = SelectionInactive, true, v.n, res.CallID
	}
}

// withdraw ends every selection made so far, runs not yet done included.
func (v *view) withdraw() {
	v.sel, v.selExit, v.cut = SelectionNone, false, v.n
}

// pending returns the latest selection the log records, unless it is the
// logged state, and whether it is an approved exit.
func (v *view) pending() (Selection, bool) {
	if v.sel == SelectionNone || v.sel == selectionOf(v.active) {
		return SelectionNone, false
	}
	return v.sel, v.selExit
}
