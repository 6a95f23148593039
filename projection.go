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
// [SelectionInactive] for exactly "off" after trimming white space,
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
// counts from the result.) A later is-error result of the same call, which
// a host writes when it could not record the approval after all, withdraws
// it too. Of these selections, the one made last wins: a
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
func Project(events host.Log) Projection {
	var v view
	v.applyAll(events)
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
	selCall   string     // the call ID of the approved exit that made sel
	cut       uint64     // the position of the last valid plan/mode or plan/cancel
	n         uint64     // the position (Seq) of the last event applied; later ones of no kind folded may be skipped
	runs      map[string]planRun
	calls     map[string]uint64 // exit_plan_mode tool/call ID → its position, until its tool/result
}

// planRun is a "/plan" command/run waiting for its command/done.
type planRun struct {
	sel Selection
	at  uint64 // the position of the command/run
}

// quotedExitTool is a cheap filter for tool calls and results:
// encoding/json never escapes the plain ASCII of the tool name, so a call or
// result of the exit tool always contains it verbatim.
const quotedExitTool = `"` + ExitToolName + `"`

// exitToolAnchor is the index in quotedExitTool of its 'x', the byte
// mentionsExitTool looks for.
const exitToolAnchor = 2

// mentionsExitTool reports whether data contains quotedExitTool, as
// bytes.Contains does. It looks for the name's 'x', a rare byte in JSON and
// in prose, with the vectorised IndexByte and compares around each one:
// bytes.Contains starts from the quote, which JSON is full of, and on a
// log's tool calls and results costs several times more.
func mentionsExitTool(data []byte) bool {
	for i := exitToolAnchor; i < len(data); i++ {
		j := bytes.IndexByte(data[i:], quotedExitTool[exitToolAnchor])
		if j < 0 {
			return false
		}
		i += j
		if s := i - exitToolAnchor; s+len(quotedExitTool) <= len(data) && string(data[s:s+len(quotedExitTool)]) == quotedExitTool {
			return true
		}
	}
	return false
}

// eventKind is an event type the view folds; kindOther for the rest.
type eventKind uint8

const (
	kindOther eventKind = iota
	kindMode
	kindCancel
	kindTurnStart
	kindTurnEnd
	kindHeader
	kindUser
	kindRun
	kindDone
	kindCall
	kindResult
)

// foldKind returns e's kind, and false when folding e would change no
// view: an event of no kind the view folds, or a user message that is not
// this plugin's notice (most of a step's events).
func foldKind(e *host.Event) (eventKind, bool) {
	k := kindOf(e.Type)
	return k, k != kindOther && (k != kindUser || isNotice(e))
}

// kindOf classifies an event type by its length first, so that most types
// the view ignores cost one comparison of lengths and at most two of short
// constant strings, which the compiler makes a few word compares.
func kindOf(t string) eventKind {
	switch len(t) {
	case len(host.TypeTurnEnd): // 8, as step/end
		if t == host.TypeTurnEnd {
			return kindTurnEnd
		}
	case len(EventPlanMode): // 9, as tool/call
		if t == EventPlanMode {
			return kindMode
		}
		if t == host.TypeToolCall {
			return kindCall
		}
	case len(host.TypeTurnStart): // 10, as step/start
		if t == host.TypeTurnStart {
			return kindTurnStart
		}
	case len(EventPlanCancel): // 11, as tool/result and command/run
		if t == host.TypeToolResult {
			return kindResult
		}
		if t == EventPlanCancel {
			return kindCancel
		}
		if t == host.TypeCommandRun {
			return kindRun
		}
	case len(host.TypeUserMessage): // 12, as command/done
		if t == host.TypeUserMessage {
			return kindUser
		}
		if t == host.TypeCommandDone {
			return kindDone
		}
	case len(host.TypeRequestHeader): // 14
		if t == host.TypeRequestHeader {
			return kindHeader
		}
	}
	return kindOther
}

// apply folds e, of kind k (see foldKind), into the view. Its position is
// its Seq: the subscription skips the events that change nothing.
func (v *view) apply(e *host.Event, k eventKind) {
	v.n = e.Seq
	v.applyKind(e, k)
}

// applyAll applies every event in order. It gives the result of apply on
// each, but decodes request headers only at the end, from the last one
// back to the first that decodes: only that header, and the notices after
// it, decide what the view keeps of them. So a long log costs a type
// check per event and a decode of the few events that can change plan
// mode, not one of every header.
func (v *view) applyAll(events host.Log) {
	var (
		header       = -1 // index of the last request/header, not decoded yet
		notice       = -1 // index of the last notice
		noticeActive bool // the logged state when it was recorded
	)
	for i := 0; i < events.Len(); {
		chunk, first := events.ChunkAt(i)
		for j := range chunk {
			e := &chunk[j]
			v.n++
			switch k := kindOf(e.Type); k {
			case kindOther:
			case kindHeader:
				header = first + j
			case kindUser:
				if isNotice(e) {
					notice, noticeActive = first+j, v.active
				}
			default:
				v.applyKind(e, k)
			}
		}
		i = first + len(chunk)
	}
	for i, e := range events.Backward(header + 1) {
		if kindOf(e.Type) != kindHeader {
			continue
		}
		if h, ok := decodeHeader(e.Data); ok {
			v.header, v.announced = h, SelectionNone
			if notice > i {
				v.announced = selectionOf(noticeActive)
			}
			return
		}
	}
	// No header in events decodes: the view's header stands, and the last
	// notice, if any, names the state since.
	if notice >= 0 {
		v.announced = selectionOf(noticeActive)
	}
}

// applyKind folds e, of kind k, into the view; v.n already counts it.
func (v *view) applyKind(e *host.Event, k eventKind) {
	switch k {
	case kindMode:
		active, err := decodeMode(e.Data)
		if err != nil {
			return
		}
		v.active = active
		v.withdraw()
	case kindCancel:
		if _, err := decodeCancel(e.Data); err != nil {
			return
		}
		v.withdraw()
	case kindTurnStart:
		v.turnOpen = true
	case kindTurnEnd:
		v.turnOpen = false
	case kindHeader:
		if h, ok := decodeHeader(e.Data); ok {
			v.header, v.announced = h, SelectionNone
		}
	case kindUser:
		if isNotice(e) {
			v.announced = selectionOf(v.active)
		}
	case kindRun:
		var run host.CommandRun
		if json.Unmarshal(e.Data, &run) != nil || run.Name != CommandName {
			return
		}
		if v.runs == nil {
			v.runs = map[string]planRun{}
		}
		v.runs[run.ID] = planRun{sel: selectionForArgs(run.Args), at: v.n}
	case kindDone:
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
	case kindCall:
		if !mentionsExitTool(e.Data) {
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
	case kindResult:
		if !mentionsExitTool(e.Data) {
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
