package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.uber.org/fx"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/deploy"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planfile"
)

// The plan a user edited in the terminal UI's review is approved through
// an exit extension: the UI answers the review question selecting
// optionApproveEdited with the edited text as the answer's custom text.
// The option is not offered in the review (only the terminal UI, which has
// an editor, gives this answer); the extension decides it as an approval,
// makes the edited text the approved plan, and tells the model in the
// result.
const (
	editExtensionName   = "planhost-edit"
	editExtensionOrder  = 100
	optionApproveEdited = "Approve edited"
	resultEdited        = "editedByUser"
	resultEditedPlan    = "editedPlan"
	resultEditedNote    = "note"

	// Model-facing texts (not translated).
	textEditedNote = "The user edited your plan before approving it. Carry out editedPlan, not the plan you presented."
	schemaEdited   = `{"type":"boolean","description":"true when the user edited the plan in an editor before approving it"}`
	schemaEditPlan = `{"type":"string","description":"the plan as the user edited and approved it; it replaces the presented plan"}`
	schemaEditNote = `{"type":"string","description":"what the edit means for you"}`
)

// editExtensionOption registers the edit extension unless the deployment
// enables plan-file: with it the terminal UI edits the plan file itself, and
// plan-file's own exit extension approves the file as the user left it and
// reports the edit. Both extensions applying an edit would report it twice
// and race for the approved plan.
func editExtensionOption(dep *deploy.Deployment) fx.Option {
	if dep != nil && slices.Contains(dep.Plugins, planfile.PluginName) {
		return fx.Options()
	}
	return fx.Supply(fx.Annotated{Group: planmode.ExitExtensionGroup, Target: editExtension()})
}

// editExtension is planhost's exit extension for edited plans.
func editExtension() planmode.ExitExtension {
	return planmode.ExitExtension{
		Name:  editExtensionName,
		Order: editExtensionOrder,
		ResultProperties: map[string]json.RawMessage{
			resultEdited:     json.RawMessage(schemaEdited),
			resultEditedPlan: json.RawMessage(schemaEditPlan),
			resultEditedNote: json.RawMessage(schemaEditNote),
		},
		Decide: decideEdited,
		Finish: finishEdited,
	}
}

// decideEdited approves when the one answer selects exactly
// optionApproveEdited with the edited plan as its text.
func decideEdited(x *planmode.ExitCall, answers []host.Answer) (planmode.ExitVerdict, bool) {
	if len(answers) != 1 {
		return planmode.ExitVerdict{}, false
	}
	a := answers[0]
	if a.QuestionID != planmode.ReviewQuestionID || !slices.Equal(a.Selected, []string{optionApproveEdited}) || strings.TrimSpace(a.Custom) == "" {
		return planmode.ExitVerdict{}, false
	}
	if len(a.Custom) > planmode.MaxPlanSize {
		return planmode.ExitVerdict{Kind: planmode.VerdictKeepPlanning, Option: optionApproveEdited,
			Err: fmt.Errorf("the edited plan is %d bytes, over the limit of %d; the review is not approved", len(a.Custom), planmode.MaxPlanSize)}, true
	}
	x.Result[resultEditedPlan] = a.Custom
	return planmode.ExitVerdict{Kind: planmode.VerdictApprove, Option: optionApproveEdited}, true
}

// finishEdited makes the edited text the approved plan and says so in the
// result.
func finishEdited(_ context.Context, x *planmode.ExitCall, v planmode.ExitVerdict) error {
	if v.Option != optionApproveEdited {
		return nil
	}
	plan, _ := x.Result[resultEditedPlan].(string)
	x.Plan = plan
	x.Result[resultEdited] = true
	x.Result[resultEditedNote] = textEditedNote
	return nil
}

// plan-file's result fields for an approval: the plan file's path and
// whether the user edited the file during the review.
const (
	planFileResultPath   = "planFile"
	planFileResultEdited = "edited"
)

// userEdited reports whether an exit_plan_mode result says the user edited
// the plan: through planhost-edit, or in the plan file (plan-file).
func userEdited(res map[string]any) bool {
	if res[resultEdited] == true {
		return true
	}
	_, planFile := res[planFileResultPath].(string)
	return planFile && res[planFileResultEdited] == true
}

// editedAnswer is the terminal UI's answer for a plan the user edited and
// then approved.
func editedAnswer(questionID, plan string) host.Answer {
	return host.Answer{QuestionID: questionID, Selected: []string{optionApproveEdited}, Custom: plan}
}
