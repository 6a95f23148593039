package plansteps

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dshgo/planmode/internal/companion"
	"github.com/dshgo/planmode/internal/jsonin"
	"github.com/dshgo/planmode/internal/planmd"
)

// Fields of one entry of the exit tool's "steps".
const (
	fieldID           = "id"
	fieldDescription  = "description"
	fieldFiles        = "files"
	fieldDependsOn    = "depends_on"
	fieldVerification = "verification"
)

// ErrBadSteps is wrapped by the errors of [DecodeSteps].
var ErrBadSteps = errors.New(textBadSteps)

// DecodeSteps reads the exit tool's "steps" argument: a list of at most
// maxSteps (at most [MaxSteps]) objects with a required non-blank
// "description" and optional "files" (strings), "depends_on" (numbers of
// earlier steps) and "verification" (how to check the step). Steps are
// numbered from 1 in list order; an "id" may be given and must then be
// that number. Unknown fields are errors, which wrap [ErrBadSteps] and name
// the step and the field.
func DecodeSteps(raw json.RawMessage, maxSteps int) ([]Step, error) {
	maxSteps = min(maxSteps, MaxSteps)
	var elems []json.RawMessage
	if jsonin.IsNull(raw) || json.Unmarshal(raw, &elems) != nil {
		return nil, fmt.Errorf("%w: %s", ErrBadSteps, textStepsNotList)
	}
	if len(elems) > maxSteps {
		return nil, fmt.Errorf("%w: "+textTooManySteps, ErrBadSteps, len(elems), maxSteps)
	}
	steps := make([]Step, 0, len(elems))
	for i, e := range elems {
		s, err := decodeInputStep(e, i+1)
		if err != nil {
			return nil, fmt.Errorf("%w: "+textStep+": %w", ErrBadSteps, i+1, err)
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// decodeInputStep reads one step of the input, numbered id.
func decodeInputStep(raw json.RawMessage, id int) (s Step, err error) {
	fields, ok := jsonin.Object(raw)
	if !ok {
		return Step{}, errors.New(textStepNotObject)
	}
	if extra := jsonin.Unknown(fields, fieldID, fieldDescription, fieldFiles, fieldDependsOn, fieldVerification); extra != "" {
		return Step{}, fmt.Errorf(textStepUnknown, extra)
	}
	if err := jsonin.Strict("the step", raw, &s); err != nil {
		return Step{}, err
	}
	if _, given := fields[fieldID]; given && s.ID != id {
		return Step{}, fmt.Errorf(textStepBadID, id)
	}
	if strings.TrimSpace(s.Description) == "" {
		return Step{}, errors.New(textStepNoDescription)
	}
	s.ID = id
	if len(s.Files) == 0 {
		s.Files = nil
	}
	if len(s.DependsOn) == 0 {
		s.DependsOn = nil
	}
	return s, checkStep(s, id)
}

// MarkdownSteps returns the steps of plan's first top-level ordered
// Markdown list, read as CommonMark: one step per item with text, described
// by the item's whole content as Markdown (continuation lines, nested
// lists and code blocks stay in the step). A nested list is never steps;
// a change of delimiter ("1)" then "1.") starts another list. At most
// maxSteps items are read; more is reported with ok false.
func MarkdownSteps(plan string, maxSteps int) (steps []Step, ok bool) {
	items, more := planmd.Steps(plan, min(maxSteps, MaxSteps))
	for i, text := range items {
		d := companion.Cut(text, MaxTextSize, "")
		if strings.TrimSpace(d) == "" {
			d = companion.Cut(strings.TrimSpace(text), MaxTextSize, "")
		}
		steps = append(steps, Step{ID: i + 1, Description: d})
	}
	return steps, !more
}

// planTitle is the plan's title, the one every front end shows, cut to
// [MaxTitleSize]; "" when the plan has no heading.
func planTitle(plan string) string {
	return companion.Cut(planmd.Title(plan), MaxTitleSize, "")
}
