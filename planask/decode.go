package planask

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dshgo/planmode/internal/jsonin"
)

// Input fields of ask_user.
const (
	argQuestions   = "questions"
	argHeader      = "header"
	argQuestion    = "question"
	argMultiSelect = "multiSelect"
	argOptions     = "options"
	argLabel       = "label"
	argDescription = "description"
)

// DecodeInput reads and checks the input of ask_user:
// {"questions": [question, ...]} with 1 to [MaxQuestions] questions, each
// {"header", "question", "options": [{"label", "description"}, ...],
// "multiSelect"?}. Header, question, label and description are non-blank
// (within their size limits); header and label hold no control
// characters, question and description none but line breaks and tabs;
// labels are distinct within a question (ignoring case) and none is
// "Other", which every question has anyway. No header, question, label
// or description reads as the plan review's own words (its header,
// question, answers and their descriptions, in English or Chinese,
// ignoring case, width, spacing and punctuation), so that no question
// from the model passes for the review. Keys match exactly and any other
// key is an error. The questions get the IDs "q1" to "q4". The error
// wraps [ErrBadInput] and names the question, the option and the field.
func DecodeInput(input json.RawMessage) ([]Question, error) {
	qs, err := decodeInput(input)
	if err == nil {
		err = checkLookalikes(qs)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return qs, nil
}

func decodeInput(input json.RawMessage) ([]Question, error) {
	top, ok := jsonin.Object(input)
	if !ok {
		return nil, errors.New(textNotObject)
	}
	if extra := jsonin.Unknown(top, argQuestions); extra != "" {
		return nil, fmt.Errorf(textUnknownTop, extra)
	}
	elems, err := jsonin.List(top, argQuestions)
	switch {
	case err != nil:
		return nil, err
	case len(elems) == 0:
		return nil, errors.New(textNoQuestions)
	case len(elems) > MaxQuestions:
		return nil, fmt.Errorf(textTooManyQuestions, len(elems), MaxQuestions)
	}
	qs := make([]Question, len(elems))
	for i, e := range elems {
		if qs[i], err = decodeQuestion(e); err != nil {
			return nil, fmt.Errorf(textQuestionN+": %w", i+1, err)
		}
		qs[i].ID = fmt.Sprintf("q%d", i+1)
	}
	return qs, nil
}

// decodeQuestion reads one question.
func decodeQuestion(raw json.RawMessage) (q Question, err error) {
	fields, ok := jsonin.Object(raw)
	if !ok {
		return Question{}, errors.New(textNotObjectPart)
	}
	if extra := jsonin.Unknown(fields, argHeader, argQuestion, argMultiSelect, argOptions); extra != "" {
		return Question{}, fmt.Errorf(textUnknownQuestion, extra)
	}
	if q.Header, err = text(fields, argHeader, MaxHeaderSize, ""); err != nil {
		return Question{}, err
	}
	if q.Question, err = text(fields, argQuestion, MaxQuestionSize, breaks); err != nil {
		return Question{}, err
	}
	if raw, ok := fields[argMultiSelect]; ok {
		if jsonin.IsNull(raw) || json.Unmarshal(raw, &q.MultiSelect) != nil {
			return Question{}, fmt.Errorf(textNotBool, argMultiSelect)
		}
	}
	elems, err := jsonin.List(fields, argOptions)
	switch {
	case err != nil:
		return Question{}, err
	case len(elems) < MinOptions || len(elems) > MaxOptions:
		return Question{}, fmt.Errorf(textOptionCount, len(elems), MinOptions, MaxOptions)
	}
	seen := map[string]int{}
	q.Options = make([]Option, len(elems))
	for i, e := range elems {
		o := &q.Options[i]
		if *o, err = decodeOption(e); err != nil {
			return Question{}, fmt.Errorf(textOptionN+": %w", i+1, err)
		}
		key := strings.ToLower(o.Label)
		if first, dup := seen[key]; dup {
			return Question{}, fmt.Errorf(textDuplicateLabel, i+1, o.Label, first+1)
		}
		seen[key] = i
	}
	return q, nil
}

// decodeOption reads one option.
func decodeOption(raw json.RawMessage) (o Option, err error) {
	fields, ok := jsonin.Object(raw)
	if !ok {
		return Option{}, errors.New(textNotObjectPart)
	}
	if extra := jsonin.Unknown(fields, argLabel, argDescription); extra != "" {
		return Option{}, fmt.Errorf(textUnknownOption, extra)
	}
	if o.Label, err = text(fields, argLabel, MaxLabelSize, ""); err != nil {
		return Option{}, err
	}
	if strings.EqualFold(o.Label, otherLabel) {
		return Option{}, errors.New(textOtherLabel)
	}
	if o.Description, err = text(fields, argDescription, MaxDescriptionSize, breaks); err != nil {
		return Option{}, err
	}
	return o, nil
}

// breaks are the control characters a question or a description may hold.
const breaks = "\n\t"

// text returns the required string field key, trimmed: non-blank, at most
// max bytes, without control characters but those in allow.
func text(fields map[string]json.RawMessage, key string, max int, allow string) (string, error) {
	s, err := jsonin.String(fields, key)
	s = strings.TrimSpace(s)
	switch {
	case err != nil:
		return "", err
	case s == "":
		return "", fmt.Errorf(textBlank, key)
	case len(s) > max:
		return "", fmt.Errorf(textTooLong, key, len(s), max)
	case jsonin.HasControl(s, allow):
		return "", fmt.Errorf(textControl, key)
	}
	return s, nil
}

// checkQuestions checks questions read back from the log as DecodeInput
// would have made them, but for the review's words: a log written before
// they were refused stays readable.
func checkQuestions(qs []Question) error {
	if len(qs) == 0 || len(qs) > MaxQuestions {
		return errors.New(problemAskPayload)
	}
	data, err := json.Marshal(map[string]any{argQuestions: inputOf(qs)})
	if err != nil {
		return errors.New(problemAskPayload)
	}
	back, err := decodeInput(data)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	for i := range qs {
		if qs[i].ID != back[i].ID {
			return errors.New(problemAskPayload)
		}
	}
	return nil
}

// inputOf turns questions back into the tool's input form.
func inputOf(qs []Question) []map[string]any {
	out := make([]map[string]any, len(qs))
	for i, q := range qs {
		out[i] = map[string]any{argHeader: q.Header, argQuestion: q.Question, argMultiSelect: q.MultiSelect, argOptions: q.Options}
	}
	return out
}
