package plansteps

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/jsonin"
)

// ExitOrder places the plugin's exit extension among the others: after
// extensions that supply the plan (a plan file), so that the steps are read
// from the plan the user sees.
const ExitOrder = 60

// StepsSchema is the JSON Schema of the exit tool's "steps" property.
const StepsSchema = `{"type":"array","maxItems":100,"description":` +
	`"Optional: the plan's steps in order, numbered from 1. Without it the plan's first numbered Markdown list is used.",` +
	`"items":{"type":"object","properties":{` +
	`"description":{"type":"string","description":"What the step does."},` +
	`"files":{"type":"array","items":{"type":"string"},"description":"Files the step touches."},` +
	`"depends_on":{"type":"array","items":{"type":"integer","minimum":1},"description":"Numbers of earlier steps that must be completed first."},` +
	`"verification":{"type":"string","description":"How to check the step (a command, a test); completing the step then needs its result."},` +
	`"id":{"type":"integer","minimum":1,"description":"Optional; if given, the step's position (1 for the first)."}},` +
	`"required":["description"],"additionalProperties":false}}`

// stepsResultSchema is the "steps" property of a successful result.
const stepsResultSchema = `{"type":"array","items":{"type":"object","properties":{` +
	`"id":{"type":"integer"},"description":{"type":"string"}},"required":["id","description"]}}`

// exitExtension is the plugin's part in exit_plan_mode: the "steps"
// property, its check before the user is asked, and the plan/steps event
// on approval.
func (p *Plugin) exitExtension() planmode.ExitExtension {
	return planmode.ExitExtension{
		Name:             PluginName,
		Order:            ExitOrder,
		Properties:       map[string]json.RawMessage{StepsArg: json.RawMessage(StepsSchema)},
		ResultProperties: map[string]json.RawMessage{StepsArg: json.RawMessage(stepsResultSchema)},
		Prepare:          p.prepareExit,
		Reread:           p.rereadExit,
		Finish:           p.finishExit,
	}
}

// givenSteps decodes the call's "steps"; given is false without them.
func (p *Plugin) givenSteps(x *planmode.ExitCall) (steps []Step, given bool, err error) {
	raw, ok := x.Input[StepsArg]
	if !ok || jsonin.IsNull(raw) {
		return nil, false, nil
	}
	steps, err = DecodeSteps(raw, p.p.Config.MaxSteps)
	return steps, true, err
}

// prepareExit checks "steps" before the user is asked, or, without it, that
// the plan's Markdown list fits the limit. Given steps are appended to the
// plan under a "Steps" heading, so that the user reviews them too.
func (p *Plugin) prepareExit(ctx context.Context, x *planmode.ExitCall) error {
	if _, given, _ := p.givenSteps(x); !given {
		if _, ok := MarkdownSteps(x.Plan, p.p.Config.MaxSteps); !ok {
			return fmt.Errorf(textMarkdownTooMany, p.p.Config.MaxSteps)
		}
		return nil
	}
	plan, err := p.rereadExit(ctx, x, x.Plan)
	if err != nil {
		return err
	}
	x.Plan = plan
	return nil
}

// rereadExit returns plan with the given steps appended under a "Steps"
// heading, as prepareExit presents it, so that a plan reread compares like
// with like with the plan shown.
func (p *Plugin) rereadExit(_ context.Context, x *planmode.ExitCall, plan string) (string, error) {
	steps, _, err := p.givenSteps(x)
	if err != nil {
		return "", err
	}
	if len(steps) > 0 {
		plan = strings.TrimRight(plan, "\n") + "\n\n" + StepsMarkdown(steps)
	}
	return plan, nil
}

// finishExit logs plan/steps for an approved plan, which starts its
// execution and replaces an earlier one, and adds the numbered steps to the
// result. An abandoned plan logs nothing.
func (p *Plugin) finishExit(ctx context.Context, x *planmode.ExitCall, v planmode.ExitVerdict) error {
	if v.Kind != planmode.VerdictApprove {
		return nil
	}
	steps, given, err := p.givenSteps(x)
	if err != nil {
		return err
	}
	payload := StepsPayload{Title: planTitle(x.Plan), Source: SourceSteps, Steps: steps}
	if !given {
		payload.Source = SourceMarkdown
		payload.Steps, _ = MarkdownSteps(x.Plan, p.p.Config.MaxSteps)
	}
	if payload.Steps == nil {
		payload.Steps = []Step{}
	}
	data, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("%s: %w", textLogFailed, err)
	}
	if _, err := host.Append(ctx, x.Agent.Session(), host.Event{Type: EventSteps, Data: data}); err != nil {
		return fmt.Errorf("%s: %w", textLogFailed, err)
	}
	brief := make([]map[string]any, len(payload.Steps))
	for i, s := range payload.Steps {
		brief[i] = map[string]any{"id": s.ID, "description": s.Description}
	}
	x.Result[StepsArg] = brief
	return nil
}

// StepsMarkdown renders steps as the numbered Markdown list appended to a
// plan for review.
func StepsMarkdown(steps []Step) string {
	var b strings.Builder
	b.WriteString(stepsHeading + "\n\n")
	for _, s := range steps {
		fmt.Fprintf(&b, "%d. %s\n", s.ID, oneLine(s.Description))
		if len(s.Files) > 0 {
			fmt.Fprintf(&b, "   - "+mdFiles+"\n", oneLine(strings.Join(s.Files, ", ")))
		}
		if len(s.DependsOn) > 0 {
			fmt.Fprintf(&b, "   - "+mdDependsOn+"\n", joinInts(s.DependsOn))
		}
		if s.Verification != "" {
			fmt.Fprintf(&b, "   - "+mdVerification+"\n", oneLine(s.Verification))
		}
	}
	return b.String()
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}
