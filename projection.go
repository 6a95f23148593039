package planmode

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/dshgo/planmode/host"
)

// Selection is a change of plan mode waiting to be logged.
type Selection uint8

const (
	// SelectionNone means no change is waiting.
	SelectionNone Selection = iota
	// SelectionActive means plan mode is to be entered.
	SelectionActive
	// SelectionInactive means plan mode is to be left (the default mode).
	SelectionInactive
)

// selectionOf returns the selection that makes the state active.
func selectionOf(active bool) Selection {
	if active {
		return SelectionActive
	}
	return SelectionInactive
}

// String returns "none", "active" or "inactive".
func (s Selection) String() string {
	switch s {
	case SelectionActive:
		return "active"
	case SelectionInactive:
		return "inactive"
	default:
		return "none"
	}
}

// selectionForArgs returns what "/plan" selects for the raw argument text:
// [SelectionInactive] for exactly [CommandArgOff] after trimming white space,
// [SelectionActive] for anything else (bare "/plan" included).
func selectionForArgs(args string) Selection {
	if strings.TrimSpace(args) == CommandArgOff {
		return SelectionInactive
	}
	return SelectionActive
}

// Projection is the plan-mode state as the log alone shows it.
type Projection struct {
	// Active is the logged state ([FoldPlanMode] over the whole log).
	Active bool
	// Pending is a selection that completed but whose "plan/mode" never
	// reached the log; SelectionNone when there is none.
	Pending Selection
	// Exit is true when Pending comes from an approved exit_plan_mode call,
	// which records no notice when it lands.
	Exit bool
}

// Project computes the plan-mode projection of a log, from the log alone.
//
// A "/plan" selection is pending when its "command/run" (name "plan";
// arguments trimmed "off" select inactive, anything else active) completed
// with an OK "command/done", no valid "plan/mode" or [EventPlanCancel] was
// appended after that "command/run", and the selection differs from the
// logged state. A successful (non-error) exit_plan_mode "tool/result" is a
// pending exit in the same way, dated from the call's "tool/call" (the
// approval happens while the call runs): a valid "plan/mode" or
// "plan/cancel" appended after the "tool/call" withdraws it, even when it
// came before the result. (A result whose "tool/call" is not in the log
// counts from the result.) Of these selections, the one made last wins: a
// "/plan" counts from its "command/run", since its selection is made while
// it runs, and an exit from its "tool/result". So a "/plan" whose
// "command/done" reaches the log after that of a "/plan" run later does not
// override it.
//
// A restarted controller seeds its pending selection from this projection,
// so a completed "/plan" whose "plan/mode" never landed is not lost, and a
// selection the user cancelled stays cancelled: [Controller.Set] logs the
// "plan/cancel" marker when it cancels a selection the log records. A
// selection made through [Controller.Set] directly leaves no trace in the
// log until it lands, so it cannot be projected.
func Project(events []host.Event) Projection {
	var v view
	for i := range events {
		v.apply(&events[i])
	}
	return v.projection()
}

// view is the plan-mode state folded from a log one event at a time. The
// controller keeps one per session, fed by the session's subscription;
// Project builds a throwaway one.
type view struct {
	active    bool       // last valid plan/mode
	turnOpen  bool       // latest of turn/start and turn/end is turn/start
	header    headerMode // what the last request header described
	announced Selection  // the state named by the last notice since that header
	sel       Selection  // last made completed /plan or approved exit not yet followed by plan/mode or plan/cancel
	selExit   bool       // sel comes from an approved exit
	selAt     uint64     // when sel was made: the position of its command/run or tool/result
	cut       uint64     // the position of the last valid plan/mode or plan/cancel
	n         uint64     // events applied so far; an event's position is n after applying it
	runs      map[string]planRun
	calls     map[string]uint64 // exit_plan_mode tool/call ID → its position, until its tool/result
}

// planRun is a "/plan" command/run waiting for its command/done.
type planRun struct {
	sel Selection
	at  uint64 // the position of the command/run
}

// quotedExitTool is a cheap filter for tool results: encoding/json never
// escapes the plain ASCII of the tool name, so a result of the exit tool
// always contains it verbatim.
const quotedExitTool = `"` + ExitToolName + `"`

func (v *view) apply(e *host.Event) {
	v.n++
	switch e.Type {
	case EventPlanMode:
		active, err := decodeMode(e.Data)
		if err != nil {
			return
		}
		v.active = active
		v.withdraw()
	case EventPlanCancel:
		if _, err := decodeCancel(e.Data); err != nil {
			return
		}
		v.withdraw()
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
		if len(v.runs) == 0 {
			return
		}
		var done host.CommandDone
		if json.Unmarshal(e.Data, &done) != nil {
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
		if !bytes.Contains(e.Data, []byte(quotedExitTool)) {
			return
		}
		var call host.ToolCall
		if json.Unmarshal(e.Data, &call) != nil || call.Name != ExitToolName {
			return
		}
		if v.calls == nil {
			v.calls = map[string]uint64{}
		}
		v.calls[call.ID] = v.n
	case host.TypeToolResult:
		if !bytes.Contains(e.Data, []byte(quotedExitTool)) {
			return
		}
		var res host.ToolResult
		if json.Unmarshal(e.Data, &res) != nil || res.Name != ExitToolName {
			return
		}
		// The exit was approved while the call ran, after its tool/call:
		// a plan/mode or plan/cancel logged since then withdrew it.
		at, called := v.calls[res.CallID]
		delete(v.calls, res.CallID)
		if res.IsError || called && at <= v.cut {
			return
		}
		v.sel, v.selExit, v.selAt = SelectionInactive, true, v.n
	}
}

// withdraw ends every selection made so far: a plan/mode landed, or a
// plan/cancel withdrew them. Runs still waiting for their command/done can
// no longer become pending.
func (v *view) withdraw() {
	v.sel, v.selExit, v.cut = SelectionNone, false, v.n
}

// pending returns the projected pending selection: the latest completed
// selection when it differs from the logged state.
func (v *view) pending() (Selection, bool) {
	if v.sel == SelectionNone || v.sel == selectionOf(v.active) {
		return SelectionNone, false
	}
	return v.sel, v.selExit
}

func (v *view) projection() Projection {
	sel, exit := v.pending()
	return Projection{Active: v.active, Pending: sel, Exit: exit}
}
