package planmode

import (
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
	if s > SelectionInactive {
		return "none"
	}
	return [...]string{"none", "active", "inactive"}[s]
}

// selectionForArgs returns what "/plan" selects for its raw argument text.
func selectionForArgs(args string) Selection {
	return selectionOf(strings.TrimSpace(args) != commandArgOff)
}

// State is an agent's plan-mode state: the logged state and the change
// waiting to be logged, as [Controller.Get] reports it, or as the log alone
// shows it ([Project]).
type State struct {
	// Active is the logged state: the last valid "plan/mode" of the session
	// ([FoldPlanMode] over the whole log).
	Active bool
	// Pending is the selection waiting for the next accepted pre-step, or
	// SelectionNone. It never equals the logged state.
	Pending Selection
	// Exit reports that Pending is an approved (or abandoned)
	// exit_plan_mode call's exit, which records no notice when it lands.
	Exit bool
}

// Project returns the plan-mode state of a log, from the log alone; a
// restarted controller seeds its pending selection from it. A "/plan" that
// completed OK (dated from its "command/run"), or an approved exit_plan_mode
// call (from its "tool/call"), is pending unless it equals the logged state
// or a valid "plan/mode" or [EventPlanCancel] came after it; the last one
// made wins. A later is-error result of the approved call withdraws it. A
// selection made through [Controller.Set] leaves no trace until it lands.
func Project(events host.Log) State {
	var v view
	v.applyAll(events)
	sel, exit := v.pending()
	return State{Active: v.active, Pending: sel, Exit: exit}
}
