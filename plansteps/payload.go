package plansteps

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
	"github.com/dshgo/planmode/internal/jsonin"
)

// CheckPayload is the plugin's payload check, a [host.Validator]: it
// rejects an event of the plugin's types whose payload does not decode or
// breaks the limits, naming the event and the problem; other events pass.
func CheckPayload(e host.Event) error {
	var err error
	switch e.Type {
	case EventSteps:
		_, err = decodeSteps(e.Data)
	case EventStepCompleted:
		_, err = decodeStepCompleted(e.Data)
	case EventStepModified:
		_, err = decodeStepModified(e.Data)
	case EventCompleted:
		_, err = decodeCompleted(e.Data)
	default:
		return nil
	}
	if err != nil {
		return companion.BadPayload(PluginName, e, err)
	}
	return nil
}

// strictJSON decodes an event's data into v, refusing unknown fields,
// trailing data and null.
func strictJSON(data []byte, v any) error { return jsonin.Strict("payload", data, v) }

func decodeSteps(data []byte) (StepsPayload, error) {
	var p StepsPayload
	if err := strictJSON(data, &p); err != nil {
		return p, err
	}
	if len(p.Title) > MaxTitleSize {
		return p, fmt.Errorf(problemTooLong, "title", len(p.Title), MaxTitleSize)
	}
	if p.Source != SourceSteps && p.Source != SourceMarkdown {
		return p, fmt.Errorf(problemSource, p.Source)
	}
	if p.Steps == nil {
		return p, errors.New(problemNoSteps)
	}
	if len(p.Steps) > MaxSteps {
		return p, fmt.Errorf(problemTooManySteps, len(p.Steps), MaxSteps)
	}
	for i, s := range p.Steps {
		if err := checkStep(s, i+1); err != nil {
			return p, fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	return p, nil
}

// checkStep checks one step numbered id.
func checkStep(s Step, id int) error {
	switch {
	case s.ID != id:
		return fmt.Errorf(problemStepID, s.ID, id)
	case strings.TrimSpace(s.Description) == "":
		return errors.New(problemDescription)
	case len(s.Description) > MaxTextSize:
		return fmt.Errorf(problemTooLong, "description", len(s.Description), MaxTextSize)
	case len(s.Verification) > MaxTextSize:
		return fmt.Errorf(problemTooLong, "verification", len(s.Verification), MaxTextSize)
	case len(s.Files) > MaxFiles:
		return fmt.Errorf(problemTooManyFiles, len(s.Files), MaxFiles)
	}
	for _, f := range s.Files {
		if strings.TrimSpace(f) == "" || len(f) > MaxFileSize {
			return fmt.Errorf(problemFile, f)
		}
	}
	seen := map[int]bool{}
	for _, d := range s.DependsOn {
		if d < 1 || d >= id || seen[d] {
			return fmt.Errorf(problemDependsOn, d, id)
		}
		seen[d] = true
	}
	return nil
}

func decodeStepCompleted(data []byte) (StepCompletedPayload, error) {
	var p StepCompletedPayload
	if err := strictJSON(data, &p); err != nil {
		return p, err
	}
	if p.Step < 1 || p.Step > MaxSteps {
		return p, fmt.Errorf(problemStepNumber, p.Step)
	}
	if len(p.VerificationResult) > MaxResultSize {
		return p, fmt.Errorf(problemTooLong, "verification_result", len(p.VerificationResult), MaxResultSize)
	}
	return p, nil
}

func decodeStepModified(data []byte) (StepModifiedPayload, error) {
	var p StepModifiedPayload
	if err := strictJSON(data, &p); err != nil {
		return p, err
	}
	if p.Step < 1 || p.Step > MaxSteps {
		return p, fmt.Errorf(problemStepNumber, p.Step)
	}
	if strings.TrimSpace(p.Reason) == "" || len(p.Reason) > MaxTextSize {
		return p, errors.New(problemReason)
	}
	for _, s := range []Step{p.Before, p.After} {
		if err := checkStep(s, p.Step); err != nil {
			return p, err
		}
	}
	return p, nil
}

func decodeCompleted(data []byte) (CompletedPayload, error) {
	var p CompletedPayload
	if err := strictJSON(data, &p); err != nil {
		return p, err
	}
	if strings.TrimSpace(p.Summary) == "" || len(p.Summary) > MaxResultSize {
		return p, errors.New(problemSummary)
	}
	if len(p.Deviations) > MaxSteps {
		return p, fmt.Errorf(problemTooManyDeviations, len(p.Deviations), MaxSteps)
	}
	for _, d := range p.Deviations {
		if d.StepID < 0 || d.StepID > MaxSteps || strings.TrimSpace(d.Description) == "" || len(d.Description) > MaxTextSize {
			return p, errors.New(problemDeviation)
		}
	}
	return p, nil
}
