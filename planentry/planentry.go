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
	"strings"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
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

// The outcomes of an enter_plan_mode call: the tool reports each with
// [host.SetOutcome], so the host logs it in the call's "tool/result" and a
// front end says how the call ended from it, never from the result text.
const (
	// OutcomeEntered: the user consented; plan mode starts at the next
	// step.
	OutcomeEntered = "entered"
	// OutcomeDeclined: the user declined, with or without words.
	OutcomeDeclined = "declined"
	// OutcomeDismissed: the user dismissed the question to speak instead.
	OutcomeDismissed = "dismissed"
	// OutcomeFailed: the question closed before the user answered (the
	// turn was cancelled, the plugin reloaded) or could not be put.
	OutcomeFailed = "failed"
	// OutcomeRefused: the call failed without asking the user (no agent,
	// already in plan mode, a bad input, no channel, a delegated agent),
	// or plan mode could not be entered after the user consented.
	OutcomeRefused = "refused"
)

// GoalPayload is the payload of [EventGoal].
type GoalPayload struct {
	// Goal is what the plan is for.
	Goal string `json:"goal"`
	// Scope is the directory or module to focus on; may be empty.
	Scope string `json:"scope,omitempty"`
}

// ErrNeedsPlanMode means the plan-mode plugin is not enabled.
var ErrNeedsPlanMode = companion.ErrNeedsPlanMode

// CheckPayload is the plugin's payload check: a plan/goal event needs a
// non-blank goal of at most [MaxGoalSize] bytes and an optional string
// scope of at most [MaxScopeSize] bytes. Other events pass.
func CheckPayload(e host.Event) error {
	if e.Type != EventGoal {
		return nil
	}
	if _, err := decodeGoal(e.Data); err != nil {
		return companion.BadPayload(PluginName, e, err)
	}
	return nil
}

func decodeGoal(data json.RawMessage) (GoalPayload, error) {
	var p struct {
		Goal  *string `json:"goal"`
		Scope string  `json:"scope"`
	}
	if err := json.Unmarshal(data, &p); err != nil || p.Goal == nil || strings.TrimSpace(*p.Goal) == "" ||
		len(*p.Goal) > MaxGoalSize || len(p.Scope) > MaxScopeSize {
		return GoalPayload{}, errors.New(problemGoalPayload)
	}
	return GoalPayload{Goal: *p.Goal, Scope: p.Scope}, nil
}
