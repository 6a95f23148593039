// Package approvewith is planhost's "Approve and execute with MODEL"
// review answer, offered when plan mode has a model of its own: it
// approves the plan like plan mode's own Approve and records, in the
// exit_plan_mode result, the model the plan is carried out with. The
// default mode's model answers after any approval; the option says so
// where the user decides, and the log keeps the choice.
package approvewith

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// The extension, its option and its result field.
const (
	// Name is the exit extension's name.
	Name = "planhost-approve-with"
	// Order places the option after the companions' and before
	// planhost's "Save plan and stop".
	Order = 80
	// LabelPrefix starts the option's label; the model's name follows.
	// The label is the identifier an answer selects; front ends show
	// their own words for the option's role (host.RoleApproveWithModel)
	// and model (host.Option.Model).
	LabelPrefix = "Approve and execute with "
	// ResultModel names, in the result of an approval with the option,
	// the model that carries the plan out.
	ResultModel = "executeWith"
)

// Model-facing texts (not translated).
const (
	description = "Leave plan mode and carry out the plan with this model."
	schemaModel = `{"type":"string","description":"the model the user chose, when approving, to carry out the plan"}`
)

// Label is the option's label for model.
func Label(model string) string { return LabelPrefix + model }

// Extension returns the exit extension offering to approve and execute
// with model.
func Extension(model string) planmode.ExitExtension {
	label := Label(model)
	return planmode.ExitExtension{
		Name:             Name,
		Order:            Order,
		Options:          []host.Option{{Label: label, Description: description, Role: host.RoleApproveWithModel, Model: model}},
		ResultProperties: map[string]json.RawMessage{ResultModel: json.RawMessage(schemaModel)},
		Decide: func(x *planmode.ExitCall, answers []host.Answer) (planmode.ExitVerdict, bool) {
			return decide(x, label, answers)
		},
		Finish: func(_ context.Context, x *planmode.ExitCall, v planmode.ExitVerdict) error {
			if v.Kind == planmode.VerdictApprove && v.Option == label {
				x.Result[ResultModel] = model
			}
			return nil
		},
	}
}

// decide takes exactly one answer selecting exactly this option (its
// role and label), with no
// words: anything else is left to the other extensions and the core. Words
// with the option keep planning, with the words as the feedback: an
// approval is never guessed.
func decide(x *planmode.ExitCall, label string, answers []host.Answer) (planmode.ExitVerdict, bool) {
	o, a, ok := x.Chosen(answers)
	if !ok || o.Role != host.RoleApproveWithModel || o.Label != label {
		return planmode.ExitVerdict{}, false
	}
	if strings.TrimSpace(a.Custom) != "" {
		return planmode.ExitVerdict{Kind: planmode.VerdictKeepPlanning, Feedback: a.Custom}, true
	}
	return planmode.ExitVerdict{Kind: planmode.VerdictApprove, Option: label}, true
}
