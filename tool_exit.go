package planmode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/jsonin"
	"github.com/dshgo/planmode/internal/planmd"
)

// Limits of the exit tool, in bytes: a larger plan fails the call before
// the review; larger feedback is left out of the error, which names its size.
const (
	maxPlanSize     = 256 << 10
	maxFeedbackSize = 256 << 10
	maxReviewAsks   = 3 // asks of one call when the plan changes during its review
)

const (
	// exitInputSchema is the JSON Schema of the exit tool's input: one
	// required string, the plan.
	exitInputSchema = `{"type":"object","properties":{"plan":` + exitPlanPropertySchema + `},` +
		`"required":["plan"],"additionalProperties":false}`
	// exitPlanPropertySchema is the "plan" property of exitInputSchema.
	exitPlanPropertySchema = `{"type":"string","description":"The plan as Markdown. Its first line is a level-1 heading naming it: # Title"}`
	// exitOutputSchema is the JSON Schema of the exit tool's result when the
	// user approves: {"approved":true}. Every other outcome is a tool error.
	exitOutputSchema = `{"type":"object","properties":{"approved":{"type":"boolean","const":true}},` +
		`"required":["approved"],"additionalProperties":false}`
	// exitResult is the result of an approved call.
	exitResult = `{"approved":true}`
	// argPlan is the input's one field.
	argPlan = "plan"
	// cardKindPlan and cardKindReview are the kinds of the cards that
	// show an exit call's plan and its review's outcome.
	cardKindPlan   = "plan"
	cardKindReview = "review"
)

// ExitOutcome is how an exit_plan_mode call ended: the tool reports it with
// [host.SetOutcome], so the host logs it in the call's "tool/result", and
// in its [Error].Outcome. A UI switches on it, never on the result text.
type ExitOutcome string

// The outcomes of an exit_plan_mode call.
const (
	// ExitApproved: the user approved the plan; plan mode ends at the next
	// accepted step.
	ExitApproved ExitOutcome = "approved"
	// ExitAbandoned: the plan was abandoned (an exit extension's verdict);
	// plan mode ends at the next accepted step.
	ExitAbandoned ExitOutcome = "abandoned"
	// ExitKeepPlanning: the user did not approve, or approved a text that
	// is not the plan as it stands; the model revises the plan (with the
	// user's feedback when there is some).
	ExitKeepPlanning ExitOutcome = "keep-planning"
	// ExitDismissed: the user dismissed the review to speak instead.
	ExitDismissed ExitOutcome = "dismissed"
	// ExitReloaded: the plugin stopped while the plan was under review.
	ExitReloaded ExitOutcome = "reloaded"
	// ExitReviewFailed: the question channel failed.
	ExitReviewFailed ExitOutcome = "review-failed"
	// ExitRefused: the call failed before the user saw the plan, or for a
	// reason of an exit extension's own.
	ExitRefused ExitOutcome = "refused"
)

// exitTool is exit_plan_mode. It is registered in both states, so switching
// plan mode never changes the request's tool catalog.
type exitTool struct {
	c   *Controller
	def host.ToolDefinition
}

func newExitTool(c *Controller) *exitTool {
	return &exitTool{c: c, def: c.exits.definition()}
}

// Definition implements [host.Tool]; it returns the same value every time.
func (t *exitTool) Definition() host.ToolDefinition { return t.def }

// Execute implements [host.Tool]: it checks the call (the [*Error] codes
// name each failure), asks the user to review the plan and, on consent only,
// queues a silent exit for the next accepted pre-step, so the rest of the
// batch still runs under plan guidance. One plan at a time: while another
// review of the session is open, or once an exit is pending, a call fails
// before its review.
func (t *exitTool) Execute(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	out, outcome, err := t.execute(ctx, call, input)
	host.SetOutcome(ctx, string(outcome))
	return out, err
}

// execute is Execute, with the call's outcome.
func (t *exitTool) execute(ctx context.Context, call host.CallContext, input json.RawMessage) (string, ExitOutcome, error) {
	agent := call.Agent
	if agent == nil || agent.Session() == nil {
		return "", ExitRefused, errExitNoAgent
	}
	r := t.c.current()
	if r == nil {
		return "", ExitRefused, fmt.Errorf("%s: %w", ExitToolName, ErrNotRunning)
	}
	st, err := r.state(agent.Session())
	if err != nil {
		return "", ExitRefused, fmt.Errorf("%s: %w", ExitToolName, err)
	}
	now := st.state()
	if !now.Active {
		return "", ExitRefused, errExitNotPlanMode
	}
	if now.Exit {
		// One decided plan per batch (docs/plan-mode.md, "Two exit calls").
		return "", ExitRefused, errExitDecided
	}
	x, err := t.decodeCall(call, input)
	if err != nil {
		return "", ExitRefused, err
	}
	x.given = x.Plan
	if err := t.c.exits.prepare(ctx, x); err != nil {
		return "", ExitRefused, err
	}
	if !planmd.HasTitle(x.Plan) {
		return "", ExitRefused, errExitNoHeading
	}
	if t.c.p.Questions == nil {
		return "", ExitRefused, errExitNoChannel
	}
	if err := checkPlan(x.Plan); err != nil {
		return "", ExitRefused, err
	}

	if !st.review(true) {
		return "", ExitRefused, errExitReviewOpen
	}
	defer st.review(false)
	if st.state().Exit {
		return "", ExitRefused, errExitDecided // decided while this call was being checked
	}

	v, err := t.reviewBound(ctx, r.stopped, x)
	if err != nil {
		return "", reviewOutcome(err), err
	}
	switch {
	case v.Kind == VerdictApprove || v.Kind == VerdictAbandon:
	case v.Err != nil:
		return "", ExitKeepPlanning, v.Err
	case len(v.Feedback) > maxFeedbackSize:
		return "", ExitKeepPlanning, keepPlanning(fmt.Sprintf(textFeedbackTooLarge, len(v.Feedback), maxFeedbackSize))
	case v.Feedback == "":
		return "", ExitKeepPlanning, ErrKeepPlanning
	default:
		return "", ExitKeepPlanning, keepPlanning(textKeepPlanningFeedback + v.Feedback)
	}
	if err := t.c.exits.finish(ctx, x, v); err != nil {
		return "", ExitRefused, err
	}
	if err := st.queueExit(); err != nil {
		return "", ExitReloaded, errReviewReloaded // stopped just as the review was answered
	}
	if v.Kind == VerdictAbandon {
		return exitSuccess(v, x.Result), ExitAbandoned, nil
	}
	return exitSuccess(v, x.Result), ExitApproved, nil
}

// reviewOutcome is the outcome of a review that ended in err: an [*Error]'s,
// else ExitRefused.
func reviewOutcome(err error) ExitOutcome {
	var e *Error
	if errors.As(err, &e) && e.Outcome != "" {
		return e.Outcome
	}
	return ExitRefused
}

// reviewBound asks the user to review x.Plan and returns the verdict. An
// approval is bound to the text shown: when the answer names another digest,
// or the extensions reread a changed plan, the user is asked again about
// the new text, at most maxReviewAsks times in all.
func (t *exitTool) reviewBound(ctx, stopped context.Context, x *ExitCall) (ExitVerdict, error) {
	shown, previous := x.Plan, ""
	reopened := reopenedDraft(x.Agent.Session().Events(), x.CallID)
	for asks := 1; ; asks++ {
		digest := host.DigestDetail(shown)
		req := reviewRequest(x.Agent, shown, previous, t.c.exits.options())
		req.Questions[0].Reopened = reopened
		answers, err := t.review(ctx, stopped, req)
		switch {
		case errors.Is(err, errReviewReloaded):
			return ExitVerdict{}, errReviewReloaded
		case errors.Is(err, host.ErrDismissed):
			return ExitVerdict{}, ErrReviewDismissed
		case errors.Is(err, host.ErrNoProvider):
			v, ok := t.c.exits.unattended(ctx, x)
			if !ok {
				return ExitVerdict{}, wrapped(errExitNoChannel.Code, ExitRefused, textExitNoChannel+" ("+err.Error()+")", err)
			}
			return v, nil
		case err != nil:
			return ExitVerdict{}, wrapped("review-failed", ExitReviewFailed, textReviewFailed+": "+err.Error(), err)
		}
		x.Edited, x.ShownDigest, x.Review = reviewEdit(answers), digest, req.Questions[0]
		v := t.c.exits.decide(x, answers)
		if v.Kind != VerdictApprove {
			x.Edited = ""
			return v, nil
		}
		now, err := t.c.exits.reread(ctx, x, shown)
		if err != nil {
			return ExitVerdict{}, err
		}
		if now == shown && echoes(answers, digest) {
			return t.takeEdit(x, v), nil
		}
		if asks >= maxReviewAsks {
			return ExitVerdict{}, errPlanChanging
		}
		if err := checkPlan(now); err != nil {
			return ExitVerdict{}, err
		}
		previous, shown, x.Plan = shown, now, now
	}
}

// takeEdit makes the user's edit of an approved plan x.Plan when an
// extension takes edits; otherwise, or when too large, it keeps planning.
func (t *exitTool) takeEdit(x *ExitCall, v ExitVerdict) ExitVerdict {
	switch {
	case x.Edited == "":
		return v
	case !t.c.exits.takesEdits():
		return ExitVerdict{Kind: VerdictKeepPlanning, Err: errEditNotTaken}
	case len(x.Edited) > maxPlanSize:
		return ExitVerdict{Kind: VerdictKeepPlanning, Err: keepPlanning(fmt.Sprintf(textEditTooLarge, len(x.Edited), maxPlanSize))}
	}
	x.Plan = x.Edited
	return v
}

// reviewEdit returns the user's edit of the plan in the review's answer,
// "" when there is none.
func reviewEdit(answers []host.Answer) string {
	i := slices.IndexFunc(answers, func(a host.Answer) bool { return a.QuestionID == reviewQuestionID && a.Edited != "" })
	if i < 0 {
		return ""
	}
	return answers[i].Edited
}

// echoes reports whether no answer names another digest than the text
// shown (front ends need not echo one).
func echoes(answers []host.Answer, digest string) bool {
	return !slices.ContainsFunc(answers, func(a host.Answer) bool { return a.DetailDigest != "" && a.DetailDigest != digest })
}

// checkPlan checks a plan before it is shown: a title and its size.
func checkPlan(plan string) error {
	if !planmd.HasTitle(plan) {
		return errExitNoHeading
	}
	if len(plan) > maxPlanSize {
		return refused("too-large", fmt.Sprintf(textExitTooLarge, len(plan), maxPlanSize))
	}
	return nil
}

// review asks the user req; a review open when the run stops (stopped is
// done), or answered just then, fails with errReviewReloaded.
func (t *exitTool) review(ctx, stopped context.Context, req host.AskRequest) ([]host.Answer, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(stopped, func() { cancel(errReviewReloaded) })()
	answers, err := t.c.p.Questions.Ask(ctx, req)
	if stopped.Err() != nil {
		return nil, errReviewReloaded
	}
	return answers, err
}

// reviewRequest is the plan review's one question: the plan as its detail,
// and Approve, the extensions' options and Keep planning, each with its
// role. previous, when not "", is the text shown before it changed.
func reviewRequest(agent host.Agent, plan, previous string, extra []host.Option) host.AskRequest {
	opts := []host.Option{{Label: reviewApprove, Description: reviewApproveDetail, Role: host.RoleApprove}}
	opts = append(opts, extra...)
	opts = append(opts, host.Option{Label: reviewKeepPlanning, Description: reviewKeepDetail, Role: host.RoleKeepPlanning})
	question := reviewQuestion
	if previous != "" {
		question = reviewChangedQuestion
	}
	return host.AskRequest{
		Agent:   agent,
		Kind:    host.AskReview,
		Purpose: reviewPurpose,
		Questions: []host.Question{{
			ID:           reviewQuestionID,
			Header:       reviewHeader,
			Question:     question,
			Detail:       plan,
			DetailDigest: host.DigestDetail(plan),
			Previous:     previous,
			Options:      opts,
		}},
	}
}

// decodeCall reads the input into an ExitCall: {"plan": string} plus the
// extensions' properties, matched exactly (not case-insensitively, as
// encoding/json would); any other key is an error.
func (t *exitTool) decodeCall(call host.CallContext, input json.RawMessage) (*ExitCall, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(input, &fields); err != nil || fields == nil {
		return nil, badInput("; got %s", quoteJSON(input))
	}
	if extra := jsonin.UnknownFunc(fields, func(k string) bool { return k == argPlan || t.c.exits.property(k) }); extra != "" {
		return nil, badInput("; unknown fields %s", extra)
	}
	x := &ExitCall{Agent: call.Agent, CallID: call.CallID, Input: fields, Result: map[string]any{}}
	raw, ok := fields[argPlan]
	switch {
	case ok:
		if jsonin.IsNull(raw) || json.Unmarshal(raw, &x.Plan) != nil {
			return nil, badInput("; %q is %s, not a string", argPlan, quoteJSON(raw))
		}
		x.PlanGiven = true
	case !t.c.exits.planOptional():
		return nil, badInput("; %q is missing", argPlan)
	}
	return x, nil
}

// PresentCall implements [host.Presenter]: a "plan" card titled by the
// plan's first heading ("Plan" when none).
func (t *exitTool) PresentCall(input json.RawMessage) host.Card {
	plan := looseplan(input)
	return host.Card{Kind: cardKindPlan, Title: planTitle(plan), Body: plan}
}

// planTitle returns the title every front end shows: planmd.Title, or "Plan".
func planTitle(plan string) string {
	if t := planmd.Title(plan); t != "" {
		return t
	}
	return cardTitleDefault
}

// PresentResult implements [host.Presenter]: a "review" card saying how
// the review ended, with the user's feedback when there is some.
func (t *exitTool) PresentResult(input json.RawMessage, output string, isError bool) host.Card {
	if !isError {
		var res struct {
			Abandoned bool `json:"abandoned"`
		}
		if json.Unmarshal([]byte(output), &res) == nil && res.Abandoned {
			return host.Card{Kind: cardKindReview, Title: cardTitleAbandoned, Body: cardBodyAbandoned}
		}
		return host.Card{Kind: cardKindReview, Title: cardTitleApproved, Body: cardBodyApproved}
	}
	msg := strings.TrimPrefix(output, host.ToolErrorPrefix)
	if feedback, ok := strings.CutPrefix(msg, textKeepPlanningFeedback); ok {
		return host.Card{Kind: cardKindReview, Title: cardTitleKeepPlanning, Body: feedback}
	}
	if msg == textKeepPlanning {
		return host.Card{Kind: cardKindReview, Title: cardTitleKeepPlanning, Body: cardBodyNoFeedback}
	}
	return host.Card{Kind: cardKindReview, Title: cardTitleFailed, Body: msg}
}

// looseplan returns the input's "plan" string for display, "" for none.
func looseplan(input json.RawMessage) string {
	var fields map[string]json.RawMessage
	var plan string
	if json.Unmarshal(input, &fields) == nil && json.Unmarshal(fields[argPlan], &plan) == nil {
		return plan
	}
	return ""
}

var (
	_ host.Tool      = (*exitTool)(nil)
	_ host.Presenter = (*exitTool)(nil)
)

// reopenedDraft returns the draft the plan of callID revises: the plan of the
// latest [EventPlanReopen], unless another exit call came after it.
func reopenedDraft(events host.Log, callID string) string {
	draft := ""
	for _, e := range events.All() {
		switch e.Type {
		case EventPlanReopen:
			if p, err := decodeReopen(e.Data); err == nil {
				draft = p.Plan
			}
		case host.TypeToolCall:
			var c host.ToolCall
			if json.Unmarshal(e.Data, &c) == nil && c.Name == ExitToolName && c.ID != callID {
				draft = ""
			}
		}
	}
	return draft
}
