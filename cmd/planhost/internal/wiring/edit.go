package wiring

import (
	"context"
	"encoding/json"
	"slices"

	"go.uber.org/fx"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/planfile"
)

// The plan a user edited in the terminal UI's review comes back in the
// review's answer (host.Answer.Edited); plan mode approves an edit only
// when an exit extension takes edits. Without plan-file that is planhost's
// edit extension, which tells the model in the result; with plan-file, the
// companion writes the edit to the plan file and reports it itself.
const (
	editExtensionName  = "planhost-edit"
	editExtensionOrder = 100
	resultEdited       = "editedByUser"
	resultEditedPlan   = "editedPlan"
	resultEditedNote   = "note"

	// Model-facing texts (not translated).
	textEditedNote = "The user edited your plan before approving it. Carry out editedPlan, not the plan you presented."
	schemaEdited   = `{"type":"boolean","description":"true when the user edited the plan in an editor before approving it"}`
	schemaEditPlan = `{"type":"string","description":"the plan as the user edited and approved it; it replaces the presented plan"}`
	schemaEditNote = `{"type":"string","description":"what the edit means for you"}`
)

// editExtensionOption registers the edit extension unless the deployment
// enables plan-file, which takes the edit itself: both reporting it would
// tell the model twice.
func editExtensionOption(dep *deploy.Deployment) fx.Option {
	if dep != nil && slices.Contains(dep.Plugins, planfile.PluginName) {
		return fx.Options()
	}
	return fx.Supply(fx.Annotated{Group: planmode.ExitExtensionGroup, Target: editExtension()})
}

// editExtension is planhost's exit extension for edited plans.
func editExtension() planmode.ExitExtension {
	return planmode.ExitExtension{
		Name:       editExtensionName,
		Order:      editExtensionOrder,
		TakesEdits: true,
		ResultProperties: map[string]json.RawMessage{
			resultEdited:     json.RawMessage(schemaEdited),
			resultEditedPlan: json.RawMessage(schemaEditPlan),
			resultEditedNote: json.RawMessage(schemaEditNote),
		},
		Finish: finishEdited,
	}
}

// finishEdited tells the model, for an approval of a plan the user edited
// in the review, that the edit is the approved plan.
func finishEdited(_ context.Context, x *planmode.ExitCall, v planmode.ExitVerdict) error {
	if v.Kind != planmode.VerdictApprove || x.Edited == "" {
		return nil
	}
	x.Result[resultEditedPlan] = x.Plan
	x.Result[resultEdited] = true
	x.Result[resultEditedNote] = textEditedNote
	return nil
}
