package plansteps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
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
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) || json.Unmarshal(raw, &elems) != nil {
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
func decodeInputStep(raw json.RawMessage, id int) (Step, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return Step{}, errors.New(textStepNotObject)
	}
	var extra []string
	for k := range fields {
		if !slices.Contains([]string{fieldID, fieldDescription, fieldFiles, fieldDependsOn, fieldVerification}, k) {
			extra = append(extra, fmt.Sprintf("%q", k))
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return Step{}, fmt.Errorf(textStepUnknown, strings.Join(extra, ", "))
	}
	s := Step{ID: id}
	if v, ok := fields[fieldID]; ok {
		var n int
		if json.Unmarshal(v, &n) != nil || n != id {
			return Step{}, fmt.Errorf(textStepBadID, id)
		}
	}
	v, ok := fields[fieldDescription]
	if !ok || isNull(v) || json.Unmarshal(v, &s.Description) != nil || strings.TrimSpace(s.Description) == "" {
		return Step{}, errors.New(textStepNoDescription)
	}
	if v, ok := fields[fieldFiles]; ok && !isNull(v) {
		if json.Unmarshal(v, &s.Files) != nil {
			return Step{}, errors.New(textStepFiles)
		}
	}
	if v, ok := fields[fieldDependsOn]; ok && !isNull(v) {
		if json.Unmarshal(v, &s.DependsOn) != nil {
			return Step{}, errors.New(textStepDependsOn)
		}
	}
	if v, ok := fields[fieldVerification]; ok && !isNull(v) {
		if json.Unmarshal(v, &s.Verification) != nil {
			return Step{}, errors.New(textStepVerification)
		}
	}
	if len(s.Files) == 0 {
		s.Files = nil
	}
	if len(s.DependsOn) == 0 {
		s.DependsOn = nil
	}
	if err := checkStep(s, id); err != nil {
		return Step{}, err
	}
	return s, nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// MarkdownSteps returns the steps of plan's first ordered Markdown list:
// one step per item ("1. text" or "1) text", indented at most three
// spaces, outside fenced code blocks), described by the item's first line.
// The list ends at the first line that is neither an item, an indented
// continuation nor blank. At most maxSteps items are read; more is
// reported with ok false.
func MarkdownSteps(plan string, maxSteps int) (steps []Step, ok bool) {
	maxSteps = min(maxSteps, MaxSteps)
	var fence string
	inList := false
	for line := range strings.Lines(plan) {
		line = strings.TrimRight(line, "\r\n")
		body := strings.TrimLeft(line, " ")
		indent := len(line) - len(body)
		if fence != "" {
			if indent <= 3 && strings.HasPrefix(body, fence) && strings.TrimRight(body, fence[:1]+" \t") == "" {
				fence = ""
			}
			continue
		}
		if indent <= 3 {
			if f := fenceOpening(body); f != "" {
				if inList {
					break
				}
				fence = f
				continue
			}
		}
		text, isItem := orderedItem(body)
		switch {
		case isItem && indent <= 3:
			if len(steps) == maxSteps {
				return steps, false
			}
			inList = true
			steps = append(steps, Step{ID: len(steps) + 1, Description: truncateText(text, MaxTextSize)})
		case !inList:
		case strings.TrimSpace(line) == "" || indent >= 2:
			// blank line or continuation of the item
		default:
			return steps, true
		}
	}
	return steps, true
}

// orderedItem reads an ordered list item marker: 1 to 9 digits, "." or
// ")", then a space or a tab; it returns the trimmed text.
func orderedItem(line string) (string, bool) {
	n := 0
	for n < len(line) && n < 10 && line[n] >= '0' && line[n] <= '9' {
		n++
	}
	if n == 0 || n > 9 || n >= len(line) || line[n] != '.' && line[n] != ')' {
		return "", false
	}
	rest := line[n+1:]
	if rest == "" || rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	text := strings.TrimSpace(rest)
	return text, text != ""
}

// fenceOpening returns the run of three or more backticks or tildes that
// opens a fenced code block on line, or "".
func fenceOpening(line string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(line) && line[n] == c {
			n++
		}
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// PlanTitle returns the text of the plan's first level-1 heading line
// ("# Title"), or "" when the plan does not start with one.
func PlanTitle(plan string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(plan), "\n")
	first = strings.TrimRight(first, "\r")
	if rest, ok := strings.CutPrefix(first, "#"); ok && (strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "\t")) {
		return truncateText(strings.TrimSpace(rest), MaxTitleSize)
	}
	return ""
}

// truncateText cuts s to at most n bytes at a rune boundary.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 {
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size != 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}
