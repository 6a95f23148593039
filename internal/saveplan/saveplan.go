// Package saveplan is planhost's "Save plan and stop" review answer: the
// user keeps the plan, approves nothing, and plan mode is left without the
// plan being carried out. It is a plan-mode exit extension whose option is
// part of the review request, so every front end that lists the request's
// options offers it; its verdict is the core's abandon (plan mode is left,
// nothing is approved), and its result tells the model that the plan was
// saved and must not be carried out, and holds the saved plan, so that the
// session log keeps it.
package saveplan

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// The extension, its option and its result fields.
const (
	// Name is the exit extension's name.
	Name = "planhost-save"
	// Order places the extension after the companions' (plan-review's
	// options come first in the menu).
	Order = 90
	// Label is the review option's label, the identifier an answer
	// selects; front ends show their own words for it.
	Label = "Save plan and stop"
	// ResultSaved is true in the result of a saved plan.
	ResultSaved = "saved"
	// ResultPlan holds the saved plan.
	ResultPlan = "savedPlan"
	// ResultNote tells the model what the answer means.
	ResultNote = "savedNote"
)

// Model-facing texts (not translated).
const (
	description = "Keep the plan and leave plan mode without carrying it out; nothing is approved."
	textSaved   = "The user saved the plan and stopped. Do not implement it and do not present it again; " +
		"plan mode is off. Wait for the user's next instructions."
	schemaSaved = `{"type":"boolean","description":"true when the user saved the plan and stopped instead of approving it"}`
	schemaPlan  = `{"type":"string","description":"the plan the user saved; it is not approved"}`
	schemaNote  = `{"type":"string","description":"what saving the plan means for you"}`
)

// Extension returns the exit extension.
func Extension() planmode.ExitExtension {
	return planmode.ExitExtension{
		Name:    Name,
		Order:   Order,
		Options: []host.Option{{Label: Label, Description: description, Role: host.RoleSave}},
		ResultProperties: map[string]json.RawMessage{
			ResultSaved: json.RawMessage(schemaSaved),
			ResultPlan:  json.RawMessage(schemaPlan),
			ResultNote:  json.RawMessage(schemaNote),
		},
		Decide: decide,
		Finish: finish,
	}
}

// decide takes exactly one answer selecting exactly the option of
// host.RoleSave, with no
// words: anything else is left to the other extensions and the core (which
// keep planning on an answer they do not know). Words with the option keep
// planning, with the words as the feedback: a save is never guessed.
func decide(x *planmode.ExitCall, answers []host.Answer) (planmode.ExitVerdict, bool) {
	o, a, ok := x.Chosen(answers)
	if !ok || o.Role != host.RoleSave {
		return planmode.ExitVerdict{}, false
	}
	if words := strings.TrimSpace(a.Custom); words != "" {
		return planmode.ExitVerdict{Kind: planmode.VerdictKeepPlanning, Feedback: a.Custom}, true
	}
	return planmode.ExitVerdict{Kind: planmode.VerdictAbandon, Option: Label}, true
}

// finish records the saved plan in the result and tells the model.
func finish(_ context.Context, x *planmode.ExitCall, v planmode.ExitVerdict) error {
	if v.Kind != planmode.VerdictAbandon || v.Option != Label {
		return nil
	}
	x.Result[ResultSaved] = true
	x.Result[ResultPlan] = x.Plan
	x.Result[ResultNote] = textSaved
	return nil
}

// Saved reports whether an exit_plan_mode result (its JSON output) says
// the user saved the plan and stopped.
func Saved(output string) bool {
	var res map[string]any
	return json.Unmarshal([]byte(output), &res) == nil && res[ResultSaved] == true
}
