package planmode

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/approval"
)

// ExitExtensionGroup is the fx value group through which companion plugins
// supply [ExitExtension] values to [New]:
//
//	fx.Provide(fx.Annotate(newExtension, fx.ResultTags(`group:"planmode.exit"`)))
const ExitExtensionGroup = "planmode.exit"

// VerdictKind says how a plan review ended.
type VerdictKind int

const (
	// VerdictKeepPlanning keeps plan mode on: the call fails and the model
	// revises its plan.
	VerdictKeepPlanning VerdictKind = iota
	// VerdictApprove approves the plan: plan mode is left silently at the
	// next accepted pre-step and the result reads {"approved":true,...}.
	VerdictApprove
	// VerdictAbandon drops the plan: plan mode is left as after an approval
	// and the result reads {"approved":false,"abandoned":true,...}.
	VerdictAbandon
)

// ExitVerdict is the outcome of a plan review as an [ExitExtension] decides it.
type ExitVerdict struct {
	// Kind is the outcome.
	Kind VerdictKind
	// Option is the label of the option that decided, for the record.
	Option string
	// Comments is text the user attached to an approval, for the model to
	// follow.
	Comments string
	// Feedback is the user's keep-planning text, passed to the model
	// verbatim (at most 256 KiB).
	Feedback string
	// Err, for VerdictKeepPlanning, is the tool error to return instead of
	// the feedback error.
	Err error
}

// ExitCall is one exit_plan_mode call as the extensions see it. Extensions
// run one after another, never concurrently, for one call.
type ExitCall struct {
	// Agent is the calling agent; it is never nil.
	Agent host.Agent
	// CallID is the model's ID for the call.
	CallID string
	// Input holds the call's top-level input fields, undecoded. Only
	// "plan" and the extensions' Properties get here.
	Input map[string]json.RawMessage
	// Plan is the plan to review: the "plan" argument, which Prepare may
	// replace. When Finish runs it is the approved text (shown or edited).
	Plan string
	// PlanGiven reports that the model passed "plan".
	PlanGiven bool
	// ShownDigest, set before Finish, is [host.DigestDetail] of the text
	// shown in the review the user answered.
	ShownDigest string
	// Review is the review question the answers are about, set before
	// Decide runs: its options carry their roles (see [ExitCall.Chosen]).
	Review host.Question
	// Edited, set before Finish, is the user's edit of the plan
	// ([host.Answer].Edited), "" for none; it reaches Finish only when an
	// extension TakesEdits, and then is Plan too.
	Edited string
	// Result holds extra fields of the success result; Finish adds to it.
	// "approved" and "abandoned" are the tool's own.
	Result map[string]any

	given string // Plan before Prepare: where Reread starts
}

// ExitExtension is a companion plugin's part in exit_plan_mode; every field
// but Name is optional. Extensions are fixed when the controller is built
// ([Params].ExitExtensions); with none, the tool is the plugin's own.
type ExitExtension struct {
	// Name identifies the extension, usually its plugin's name; unique.
	Name string
	// Order places the extension among the others (value groups come in
	// random order); ties are broken by Name.
	Order int
	// Properties are extra input properties of the tool: name → JSON Schema.
	// They may not be "plan" or another extension's.
	Properties map[string]json.RawMessage
	// ResultProperties are extra properties of a successful result: name →
	// JSON Schema.
	ResultProperties map[string]json.RawMessage
	// PlanOptional makes "plan" optional; Prepare must then supply a plan
	// when the model omits it.
	PlanOptional bool
	// Prepare runs after the agent, mode and input checks, before the
	// heading check; it may set x.Plan. An error fails the call.
	Prepare func(ctx context.Context, x *ExitCall) error
	// Options are extra review options, between Approve and Keep planning,
	// each with its [host.Role], which front ends decide from.
	Options []host.Option
	// Decide reads the review's answers; the first extension that reports
	// handled decides, else the core's rule (one answer selecting exactly
	// the [host.RoleApprove] option, with no custom text, approves).
	Decide func(x *ExitCall, answers []host.Answer) (v ExitVerdict, handled bool)
	// Unattended decides when no user is attached ([host.ErrNoProvider]):
	// the first that reports handled does, else the call fails.
	Unattended func(ctx context.Context, x *ExitCall) (v ExitVerdict, handled bool)
	// Reread returns the plan as the extension presents it now, given the
	// plan from the extensions before it (the first gets the "plan"
	// argument). It runs in order when an answer approves: when the result
	// differs from the text shown, the user is asked again. An extension
	// whose Prepare replaces x.Plan must reread its source here. An error
	// fails the call and plan mode stays.
	Reread func(ctx context.Context, x *ExitCall, plan string) (string, error)
	// TakesEdits says Finish applies a plan the user edited (x.Edited);
	// without one that does, an answer with an edit is no approval.
	TakesEdits bool
	// Finish runs in order for a verdict that leaves plan mode, before the
	// exit is queued; it may add to x.Result. An error fails the call.
	Finish func(ctx context.Context, x *ExitCall, v ExitVerdict) error
	// Reopen runs in order when "/plan reopen" made plan the working draft;
	// delivered says it gave the model the draft itself (a plan file), so
	// the notice only names it. An error fails the command.
	Reopen func(ctx context.Context, agent host.Agent, plan string) (delivered bool, err error)
}

// Chosen returns the option and the answer when answers are exactly one
// answer to x.Review selecting exactly one of its options.
func (x *ExitCall) Chosen(answers []host.Answer) (host.Option, host.Answer, bool) {
	if len(answers) != 1 || answers[0].QuestionID != x.Review.ID {
		return host.Option{}, host.Answer{}, false
	}
	o, ok := x.Review.Chosen(answers[0])
	return o, answers[0], ok
}

// exitExtensions is the sorted, checked set of a controller's extensions.
type exitExtensions []ExitExtension

// newExitExtensions sorts xs by (Order, Name) and checks that names and
// properties are unique.
func newExitExtensions(xs []ExitExtension) (exitExtensions, error) {
	xs = slices.Clone(xs)
	slices.SortFunc(xs, func(a, b ExitExtension) int {
		return cmp.Or(cmp.Compare(a.Order, b.Order), cmp.Compare(a.Name, b.Name))
	})
	names := map[string]bool{}
	props := map[string]string{argPlan: PluginName}
	for _, x := range xs {
		if x.Name == "" {
			return nil, fmt.Errorf("%w: an exit extension has no name", errBadExtension)
		}
		if names[x.Name] {
			return nil, fmt.Errorf("%w: exit extension %q is supplied twice", errBadExtension, x.Name)
		}
		names[x.Name] = true
		for _, p := range slices.Sorted(maps.Keys(x.Properties)) {
			if owner, ok := props[p]; ok {
				return nil, fmt.Errorf("%w: exit extension %q: input property %q is already %s's", errBadExtension, x.Name, p, owner)
			}
			props[p] = x.Name
		}
	}
	return xs, nil
}

// planOptional reports whether some extension makes "plan" optional.
func (xs exitExtensions) planOptional() bool {
	return slices.ContainsFunc(xs, func(x ExitExtension) bool { return x.PlanOptional })
}

// property reports whether name is an extension's input property.
func (xs exitExtensions) property(name string) bool {
	return slices.ContainsFunc(xs, func(x ExitExtension) bool { _, ok := x.Properties[name]; return ok })
}

// options returns the extensions' extra review options, in order.
func (xs exitExtensions) options() []host.Option {
	var opts []host.Option
	for _, x := range xs {
		opts = append(opts, x.Options...)
	}
	return opts
}

// definition returns the exit tool's definition; with no extension it is
// the core's own, byte for byte.
func (xs exitExtensions) definition() host.ToolDefinition {
	def := host.ToolDefinition{
		Name:         ExitToolName,
		Description:  exitToolDescription,
		InputSchema:  json.RawMessage(exitInputSchema),
		OutputSchema: json.RawMessage(exitOutputSchema),
	}
	if len(xs) == 0 {
		return def
	}
	in := map[string]json.RawMessage{argPlan: json.RawMessage(exitPlanPropertySchema)}
	out := map[string]json.RawMessage{
		"approved":  json.RawMessage(`{"type":"boolean"}`),
		"abandoned": json.RawMessage(`{"type":"boolean"}`),
	}
	for _, x := range xs {
		maps.Copy(in, x.Properties)
		maps.Copy(out, x.ResultProperties)
	}
	required := []string{argPlan}
	if xs.planOptional() {
		required = []string{}
	}
	def.InputSchema = mustJSON(map[string]any{
		"type": "object", "properties": in, "required": required, "additionalProperties": false,
	})
	def.OutputSchema = mustJSON(map[string]any{
		"type": "object", "properties": out, "required": []string{"approved"}, "additionalProperties": false,
	})
	return def
}

// mustJSON encodes maps, strings and raw JSON, which cannot fail; map keys
// come out sorted.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("planmode: encoding a tool schema: %v", err)) // unreachable: maps of strings and raw JSON
	}
	return b
}

// prepare runs every Prepare in order.
func (xs exitExtensions) prepare(ctx context.Context, x *ExitCall) error {
	for _, e := range xs {
		if e.Prepare != nil {
			if err := e.Prepare(ctx, x); err != nil {
				return err
			}
		}
	}
	return nil
}

// decide returns the first extension's verdict on answers, or the core's
// (approval.Read).
func (xs exitExtensions) decide(x *ExitCall, answers []host.Answer) ExitVerdict {
	for _, e := range xs {
		if e.Decide != nil {
			if v, ok := e.Decide(x, answers); ok {
				return v
			}
		}
	}
	approved, feedback := approval.Read(x.Review, answers)
	if approved {
		return ExitVerdict{Kind: VerdictApprove, Option: reviewApprove}
	}
	return ExitVerdict{Kind: VerdictKeepPlanning, Feedback: feedback}
}

// reread runs every Reread in order from the "plan" argument; with none,
// the plan shown cannot have changed and it returns shown.
func (xs exitExtensions) reread(ctx context.Context, x *ExitCall, shown string) (string, error) {
	if !slices.ContainsFunc(xs, func(e ExitExtension) bool { return e.Reread != nil }) {
		return shown, nil
	}
	plan := x.given
	for _, e := range xs {
		if e.Reread != nil {
			var err error
			if plan, err = e.Reread(ctx, x, plan); err != nil {
				return "", err
			}
		}
	}
	return plan, nil
}

// takesEdits reports whether some extension takes a plan the user edited.
func (xs exitExtensions) takesEdits() bool {
	return slices.ContainsFunc(xs, func(x ExitExtension) bool { return x.TakesEdits })
}

// unattended returns the first extension's verdict for a review with no
// user attached.
func (xs exitExtensions) unattended(ctx context.Context, x *ExitCall) (ExitVerdict, bool) {
	for _, e := range xs {
		if e.Unattended != nil {
			if v, ok := e.Unattended(ctx, x); ok {
				return v, true
			}
		}
	}
	return ExitVerdict{}, false
}

// finish runs every Finish in order.
func (xs exitExtensions) finish(ctx context.Context, x *ExitCall, v ExitVerdict) error {
	for _, e := range xs {
		if e.Finish != nil {
			if err := e.Finish(ctx, x, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// exitSuccess is the result of a verdict that leaves plan mode.
func exitSuccess(v ExitVerdict, extra map[string]any) string {
	if v.Kind == VerdictApprove && len(extra) == 0 {
		return exitResult
	}
	fields := map[string]any{}
	maps.Copy(fields, extra)
	fields["approved"] = v.Kind == VerdictApprove
	delete(fields, "abandoned")
	if v.Kind == VerdictAbandon {
		fields["abandoned"] = true
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return exitSuccess(v, nil) // an extra cannot be encoded: drop the extras
	}
	return string(b)
}
