package plansteps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/approval"
	"github.com/dshgo/planmode/internal/companion"
	"github.com/dshgo/planmode/internal/jsonin"
)

// toolFunc runs one tool on the calling agent's session, whose state is s.
type toolFunc func(ctx context.Context, call host.CallContext, s State, input json.RawMessage) (string, error)

// tools returns the four tools; each needs an agent with a session and
// the plugin running.
func (p *Plugin) tools() []host.Tool {
	mk := func(name, desc, schema string, run toolFunc) host.Tool {
		return companion.Tool{
			Def: host.ToolDefinition{Name: name, Description: desc, InputSchema: json.RawMessage(schema)},
			Run: func(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
				if call.Agent == nil || call.Agent.Session() == nil {
					return "", errors.New(textNoAgent)
				}
				s, err := p.folds.Get(call.Agent.Session())
				if err != nil {
					return "", fmt.Errorf("%s: %w", name, err)
				}
				return run(ctx, call, s, input)
			},
		}
	}
	return []host.Tool{
		mk(StatusToolName, StatusToolDescription, StatusInputSchema, p.status),
		mk(StepCompleteToolName, StepCompleteToolDescription, StepCompleteInputSchema, p.stepComplete),
		mk(ModifyToolName, ModifyToolDescription, ModifyInputSchema, p.modify),
		mk(CompleteToolName, CompleteToolDescription, CompleteInputSchema, p.complete),
	}
}

// The tools' input schemas.
const (
	// StatusInputSchema is the JSON Schema of plan_status's input: nothing.
	StatusInputSchema = `{"type":"object","properties":{},"additionalProperties":false}`
	// StepCompleteInputSchema is the JSON Schema of plan_step_complete's input.
	StepCompleteInputSchema = `{"type":"object","properties":{` +
		`"step_id":{"type":"integer","minimum":1,"description":"The step's number."},` +
		`"verification_result":{"type":"string","description":"What checking the step showed (the output of its verification); required when the step has a verification."}},` +
		`"required":["step_id"],"additionalProperties":false}`
	// ModifyInputSchema is the JSON Schema of plan_modify's input.
	ModifyInputSchema = `{"type":"object","properties":{` +
		`"step_id":{"type":"integer","minimum":1,"description":"The step to change."},` +
		`"reason":{"type":"string","description":"Why the step must change."},` +
		`"new_description":{"type":"string","description":"The step's new description."},` +
		`"new_files":{"type":"array","items":{"type":"string"},"description":"Optional: the step's new files."},` +
		`"new_verification":{"type":"string","description":"Optional: the step's new verification."}},` +
		`"required":["step_id","reason","new_description"],"additionalProperties":false}`
	// CompleteInputSchema is the JSON Schema of plan_complete's input.
	CompleteInputSchema = `{"type":"object","properties":{` +
		`"summary":{"type":"string","description":"What was achieved."},` +
		`"deviations":{"type":"array","description":"Changes from the approved plan; every step not completed must be named here.",` +
		`"items":{"type":"object","properties":{"step_id":{"type":"integer","minimum":1,"description":"The step concerned, if any."},` +
		`"description":{"type":"string","description":"What changed and why."}},"required":["description"],"additionalProperties":false}}},` +
		`"required":["summary"],"additionalProperties":false}`
)

// decodeInput decodes the input of tool name into v strictly: a JSON
// object with no unknown fields (no input reads as {}).
func decodeInput(name string, input json.RawMessage, v any) error {
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	if err := jsonin.Strict("input", input, v); err != nil {
		return fmt.Errorf(textBadInput, name, err)
	}
	return nil
}

// commit logs an event of type typ with payload when check accepts the
// session's state under the append lock, so that concurrent calls cannot
// both pass it.
func (p *Plugin) commit(ctx context.Context, call host.CallContext, typ string, payload any, check func(State) error) error {
	data, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	refused, err := p.folds.AppendIf(ctx, call.Agent.Session(), host.Event{Type: typ, Data: data}, check)
	if err != nil {
		return fmt.Errorf("%s: %w", textLogFailed, err)
	}
	return refused
}

// StatusReport is the result of plan_status.
type StatusReport struct {
	// Mode is "plan" or "default".
	Mode  string `json:"mode"`
	Goal  string `json:"goal,omitempty"`
	Scope string `json:"scope,omitempty"`
	// Plan is the latest approved plan, absent before the first.
	Plan *PlanReport `json:"plan,omitempty"`
}

// PlanReport describes an approved plan in [StatusReport].
type PlanReport struct {
	Title string `json:"title"`
	// State is "executing" or "completed".
	State string `json:"state"`
	// Steps are the steps with their status.
	Steps []StepReport `json:"steps"`
	// CurrentStep is the step to work on, 0 when none.
	CurrentStep int    `json:"current_step"`
	Summary     string `json:"summary,omitempty"`
}

// StepReport is one step in [PlanReport].
type StepReport struct {
	Step
	// Status is "completed", "in_progress" (the current step) or "pending".
	Status string `json:"status"`
}

// Report builds the plan_status report of s.
func Report(s State) StatusReport {
	r := StatusReport{Mode: modeDefault, Goal: s.Goal, Scope: s.Scope}
	if s.PlanMode {
		r.Mode = modePlan
	}
	if x := s.Plan; x != nil {
		pr := &PlanReport{Title: x.Title, State: stateExecuting, Steps: make([]StepReport, len(x.Steps)), CurrentStep: x.Current()}
		if x.Done {
			pr.State, pr.Summary, pr.CurrentStep = stateCompleted, x.Summary, 0
		}
		for i, st := range x.Steps {
			pr.Steps[i] = StepReport{Step: st.Step, Status: stepStatus(st, pr.CurrentStep)}
		}
		r.Plan = pr
	}
	return r
}

func stepStatus(st StepState, current int) string {
	switch {
	case st.Completed:
		return statusCompleted
	case st.ID == current:
		return statusInProgress
	}
	return statusPending
}

func (p *Plugin) status(_ context.Context, _ host.CallContext, s State, input json.RawMessage) (string, error) {
	var in struct{}
	if err := decodeInput(StatusToolName, input, &in); err != nil {
		return "", err
	}
	return companion.JSON(Report(s))
}

func (p *Plugin) stepComplete(ctx context.Context, call host.CallContext, _ State, input json.RawMessage) (string, error) {
	var in struct {
		StepID             *int   `json:"step_id"`
		VerificationResult string `json:"verification_result"`
	}
	if err := decodeInput(StepCompleteToolName, input, &in); err != nil {
		return "", err
	}
	if in.StepID == nil {
		return "", fmt.Errorf(textFieldMissing, StepCompleteToolName, "step_id")
	}
	if len(in.VerificationResult) > MaxResultSize {
		return "", fmt.Errorf(textResultTooLong, len(in.VerificationResult), MaxResultSize)
	}
	id := *in.StepID
	var x *Execution
	err := p.commit(ctx, call, EventStepCompleted, StepCompletedPayload{Step: id, VerificationResult: in.VerificationResult}, func(s State) error {
		if !s.Executing() {
			return errors.New(textNotExecuting)
		}
		x = s.Plan
		if id < 1 || id > len(x.Steps) {
			return fmt.Errorf(textNoSuchStep, id, len(x.Steps))
		}
		step := x.Steps[id-1]
		if step.Completed {
			return fmt.Errorf(textAlreadyCompleted, id)
		}
		var open []string
		for _, d := range step.DependsOn {
			if !x.Steps[d-1].Completed {
				open = append(open, fmt.Sprint(d))
			}
		}
		if len(open) > 0 {
			return fmt.Errorf(textDependencies, id, strings.Join(open, ", "))
		}
		if step.Verification != "" && strings.TrimSpace(in.VerificationResult) == "" {
			return fmt.Errorf(textNeedsVerification, id, oneLine(step.Verification))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	x = x.clone()
	x.Steps[id-1].Completed = true
	done, next := x.Completed(), x.Current()
	switch {
	case next != 0:
		return fmt.Sprintf(textStepDoneNext, id, done, len(x.Steps), next, oneLine(x.Steps[next-1].Description)), nil
	case done == len(x.Steps):
		return fmt.Sprintf(textStepDoneAll, id), nil
	}
	return fmt.Sprintf(textStepDoneBlocked, id), nil
}

func (p *Plugin) modify(ctx context.Context, call host.CallContext, s0 State, input json.RawMessage) (string, error) {
	host.SetOutcome(ctx, ModifyRefused) // until the user is asked
	var in struct {
		StepID          *int      `json:"step_id"`
		Reason          string    `json:"reason"`
		NewDescription  string    `json:"new_description"`
		NewFiles        *[]string `json:"new_files"`
		NewVerification *string   `json:"new_verification"`
	}
	if err := decodeInput(ModifyToolName, input, &in); err != nil {
		return "", err
	}
	switch {
	case in.StepID == nil:
		return "", fmt.Errorf(textFieldMissing, ModifyToolName, "step_id")
	case strings.TrimSpace(in.Reason) == "":
		return "", fmt.Errorf(textFieldBlank, ModifyToolName, "reason")
	case strings.TrimSpace(in.NewDescription) == "":
		return "", fmt.Errorf(textFieldBlank, ModifyToolName, "new_description")
	case len(in.Reason) > MaxTextSize:
		return "", fmt.Errorf(textTextTooLong, "reason", len(in.Reason), MaxTextSize)
	}
	id := *in.StepID
	check := func(s State) (Step, error) {
		if !s.Executing() {
			return Step{}, errors.New(textNotExecuting)
		}
		if id < 1 || id > len(s.Plan.Steps) {
			return Step{}, fmt.Errorf(textNoSuchStep, id, len(s.Plan.Steps))
		}
		if s.Plan.Steps[id-1].Completed {
			return Step{}, fmt.Errorf(textModifyCompleted, id)
		}
		return s.Plan.Steps[id-1].Step, nil
	}
	before, err := check(s0)
	if err != nil {
		return "", err
	}
	after := before
	after.Description = in.NewDescription
	if in.NewFiles != nil {
		after.Files = slices.Clone(*in.NewFiles)
		if len(after.Files) == 0 {
			after.Files = nil
		}
	}
	if in.NewVerification != nil {
		after.Verification = *in.NewVerification
	}
	if err := checkStep(after, id); err != nil {
		return "", fmt.Errorf(textBadChange, err)
	}
	if p.p.Questions == nil {
		return "", errors.New(textModifyNoChannel)
	}
	req := modifyRequest(call.Agent, s0.Plan.Title, before, after, in.Reason)
	answers, err := p.run.Ask(ctx, p.p.Questions, req, errReloaded)
	switch {
	case errors.Is(err, errReloaded):
		host.SetOutcome(ctx, ModifyFailed)
		return "", errReloaded
	case errors.Is(err, host.ErrDismissed):
		host.SetOutcome(ctx, ModifyDismissed)
		return "", errors.New(textModifyDismissed)
	case errors.Is(err, host.ErrNoProvider), errors.Is(err, host.ErrDelegatedAgent):
		return "", fmt.Errorf("%s (%w)", textModifyNoChannel, err)
	case err != nil:
		host.SetOutcome(ctx, ModifyFailed)
		return "", fmt.Errorf("%s: %w", textModifyFailed, err)
	}
	if approved, words := approval.Read(req.Questions[0], answers); !approved {
		host.SetOutcome(ctx, ModifyDeclined)
		if words == "" {
			return "", errors.New(textModifyRefused)
		}
		return "", errors.New(textModifyRefusedWords + words)
	}
	err = p.commit(ctx, call, EventStepModified, StepModifiedPayload{Step: id, Reason: in.Reason, Before: before, After: after}, func(s State) error {
		cur, err := check(s)
		if err == nil && (s.Plan.Seq != s0.Plan.Seq || !sameStep(cur, before)) {
			err = errors.New(textModifyStale)
		}
		return err
	})
	if err != nil {
		host.SetOutcome(ctx, ModifyRefused)
		return "", err
	}
	host.SetOutcome(ctx, ModifyChanged)
	return fmt.Sprintf(textModified, id, oneLine(after.Description)), nil
}

func sameStep(a, b Step) bool {
	return a.ID == b.ID && a.Description == b.Description && a.Verification == b.Verification &&
		slices.Equal(a.Files, b.Files) && slices.Equal(a.DependsOn, b.DependsOn)
}

// modifyRequest is the one question of a step change: the step before and
// after, as its Markdown detail and as the same content in fields.
func modifyRequest(agent host.Agent, title string, before, after Step, reason string) host.AskRequest {
	var b strings.Builder
	fmt.Fprintf(&b, modifyDetailHead+modifyDetailReason, before.ID, title, reason)
	fields := []host.Field{
		{Key: FieldStep, Value: strconv.Itoa(before.ID)},
		{Key: FieldPlan, Value: title},
		{Key: FieldReason, Value: reason},
	}
	add := func(key, md, value string) {
		if value != "" {
			fields = append(fields, host.Field{Key: key, Value: value})
			fmt.Fprintf(&b, "- "+md+"\n", value)
		}
	}
	b.WriteString(modifyDetailBefore)
	add(FieldBefore, mdDescription, before.Description)
	add(FieldBeforeFiles, mdFiles, strings.Join(before.Files, ", "))
	add(FieldBeforeVerification, mdVerification, before.Verification)
	b.WriteString(modifyDetailAfter)
	add(FieldAfter, mdDescription, after.Description)
	add(FieldAfterFiles, mdFiles, strings.Join(after.Files, ", "))
	add(FieldAfterVerification, mdVerification, after.Verification)
	return host.AskRequest{
		Agent:   agent,
		Kind:    host.AskConsent,
		Purpose: ModifyPurpose,
		Questions: []host.Question{{
			ID:       ModifyQuestionID,
			Header:   modifyHeader,
			Question: fmt.Sprintf(modifyQuestion, before.ID),
			Detail:   b.String(),
			Fields:   fields,
			Options: []host.Option{
				{Label: ModifyApprove, Description: modifyApproveDetail, Role: host.RoleApprove},
				{Label: ModifyKeep, Description: modifyKeepDetail, Role: host.RoleDecline},
			},
		}},
	}
}

// errReloaded fails a question open while the plugin stops.
var errReloaded = errors.New(textModifyReloaded)

func (p *Plugin) complete(ctx context.Context, call host.CallContext, _ State, input json.RawMessage) (string, error) {
	var in CompletedPayload
	if err := decodeInput(CompleteToolName, input, &in); err != nil {
		return "", err
	}
	switch {
	case strings.TrimSpace(in.Summary) == "":
		return "", fmt.Errorf(textFieldBlank, CompleteToolName, "summary")
	case len(in.Summary) > MaxResultSize:
		return "", fmt.Errorf(textTextTooLong, "summary", len(in.Summary), MaxResultSize)
	case len(in.Deviations) > MaxSteps:
		return "", fmt.Errorf(textTooManyDeviations, len(in.Deviations), MaxSteps)
	}
	for i, d := range in.Deviations {
		if strings.TrimSpace(d.Description) == "" || len(d.Description) > MaxTextSize {
			return "", fmt.Errorf(textBadDeviation, i+1, MaxTextSize)
		}
	}
	err := p.commit(ctx, call, EventCompleted, in, func(s State) error {
		if !s.Executing() {
			return errors.New(textNotExecuting)
		}
		named := map[int]bool{}
		for i, d := range in.Deviations {
			if d.StepID < 0 || d.StepID > len(s.Plan.Steps) {
				return fmt.Errorf(textDeviationStep, i+1, d.StepID, len(s.Plan.Steps))
			}
			named[d.StepID] = true
		}
		var open []string
		for _, step := range s.Plan.Steps {
			if !step.Completed && !named[step.ID] {
				open = append(open, fmt.Sprint(step.ID))
			}
		}
		if len(open) > 0 {
			return fmt.Errorf(textStepsOpen, strings.Join(open, ", "))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return textCompleted, nil
}
