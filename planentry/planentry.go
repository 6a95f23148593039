// Package planentry is the plan-entry companion of the plan-mode plugin:
// the tool enter_plan_mode, with which the model asks the user to switch
// the session into plan mode.
//
// The user decides through the host's question channel (intent
// "plan-entry"). On consent the plugin records a silent pending entry
// ([planmode.Controller.Enter]), applied at the next accepted pre-step, and
// a log-only [EventGoal] event with the goal and scope; while plan mode is
// on, the section [SectionName] shows them. With no channel, no user
// attached, or a delegated agent, the tool fails closed: plan mode is never
// entered without the user.
package planentry

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// Names the plugin registers with the host.
const (
	// PluginName names the plugin: its key under plugins and its fx module.
	PluginName = "plan-entry"
	// ToolName is the tool the model calls to ask for plan mode.
	ToolName = "enter_plan_mode"
	// EventGoal is the log-only event that records a consented entry's goal
	// and scope; its payload is [GoalPayload].
	EventGoal = "plan/goal"
	// SectionName is the section that shows the goal while plan mode is on.
	SectionName = "plan:goal"
	// SectionOrder places [SectionName] after plan:file (51).
	SectionOrder = 52
	// MaxGoalSize is the longest goal, in bytes (4 KiB).
	MaxGoalSize = 4 << 10
	// MaxScopeSize is the longest scope, in bytes (4 KiB).
	MaxScopeSize = 4 << 10
)

// GoalPayload is the payload of [EventGoal].
type GoalPayload struct {
	// Goal is what the plan is for.
	Goal string `json:"goal"`
	// Scope is the directory or module to focus on; may be empty.
	Scope string `json:"scope,omitempty"`
}

// Errors of the plugin.
var (
	// ErrNeedsPlanMode means the plan-mode plugin is not enabled.
	ErrNeedsPlanMode = errors.New(textNeedsPlanMode)
	// ErrBadPayload means a plan/goal event is malformed.
	ErrBadPayload = errors.New(textBadPayload)
)

// CheckPayload is the plugin's payload check: a plan/goal event needs a
// non-blank goal of at most [MaxGoalSize] bytes and an optional string
// scope of at most [MaxScopeSize] bytes. Other events pass.
func CheckPayload(e host.Event) error {
	if e.Type != EventGoal {
		return nil
	}
	if _, err := decodeGoal(e.Data); err != nil {
		return fmt.Errorf("%s: event %d %q: %w: %w", PluginName, e.Seq, e.Type, ErrBadPayload, err)
	}
	return nil
}

func decodeGoal(data json.RawMessage) (GoalPayload, error) {
	var p struct {
		Goal  *string `json:"goal"`
		Scope *string `json:"scope"`
	}
	if err := json.Unmarshal(data, &p); err != nil || p.Goal == nil || strings.TrimSpace(*p.Goal) == "" ||
		len(*p.Goal) > MaxGoalSize || (p.Scope != nil && len(*p.Scope) > MaxScopeSize) {
		return GoalPayload{}, errors.New(problemGoalPayload)
	}
	g := GoalPayload{Goal: *p.Goal}
	if p.Scope != nil {
		g.Scope = *p.Scope
	}
	return g, nil
}

// State is what the plugin folds from a session's log.
type State struct {
	// Goal is the latest consented entry's goal and scope.
	Goal GoalPayload
	// Active is the logged plan-mode state.
	Active bool
}

// Fold applies one event to s; it is pure and skips malformed payloads.
func Fold(s State, e host.Event) State {
	switch e.Type {
	case EventGoal:
		if g, err := decodeGoal(e.Data); err == nil {
			s.Goal = g
		}
	case planmode.EventPlanMode:
		var p struct {
			Active *bool `json:"active"`
		}
		if json.Unmarshal(e.Data, &p) == nil && p.Active != nil {
			s.Active = *p.Active
		}
	}
	return s
}
