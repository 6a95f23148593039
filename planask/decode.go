package planask

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

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
// "Other", which every question has anyway. Keys match exactly and any
// other key is an error. The questions get the IDs "q1" to "q4". The
// error wraps [ErrBadInput] and names the question, the option and the
// field.
func DecodeInput(input json.RawMessage) ([]Question, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(input, &top); err != nil || top == nil {
		return nil, fmt.Errorf("%w: %s", ErrBadInput, textNotObject)
	}
	if extra := jsonin.Unknown(top, argQuestions); extra != "" {
		return nil, fmt.Errorf("%w: "+textUnknownTop, ErrBadInput, extra)
	}
	raw, ok := top[argQuestions]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrBadInput, textQuestionsMissing)
	}
	var elems []json.RawMessage
	if jsonin.IsNull(raw) || json.Unmarshal(raw, &elems) != nil {
		return nil, fmt.Errorf("%w: %s", ErrBadInput, textQuestionsNotList)
	}
	switch {
	case len(elems) == 0:
		return nil, fmt.Errorf("%w: %s", ErrBadInput, textNoQuestions)
	case len(elems) > MaxQuestions:
		return nil, fmt.Errorf("%w: "+textTooManyQuestions, ErrBadInput, len(elems), MaxQuestions)
	}
	qs := make([]Question, 0, len(elems))
	for i, e := range elems {
		q, err := decodeQuestion(e)
		if err != nil {
			return nil, fmt.Errorf("%w: "+textQuestionN+": %w", ErrBadInput, i+1, err)
		}
		q.ID = questionID(i)
		qs = append(qs, q)
	}
	return qs, nil
}

// questionID is the ID of question i (0-based).
func questionID(i int) string { return fmt.Sprintf("q%d", i+1) }

// decodeQuestion reads one question.
func decodeQuestion(raw json.RawMessage) (Question, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return Question{}, errors.New(textNotObjectPart)
	}
	if extra := jsonin.Unknown(fields, argHeader, argQuestion, argMultiSelect, argOptions); extra != "" {
		return Question{}, fmt.Errorf(textUnknownQuestion, extra)
	}
	var q Question
	var err error
	if q.Header, err = text(fields, argHeader, MaxHeaderSize, false); err != nil {
		return Question{}, err
	}
	if q.Question, err = text(fields, argQuestion, MaxQuestionSize, true); err != nil {
		return Question{}, err
	}
	if raw, ok := fields[argMultiSelect]; ok {
		if jsonin.IsNull(raw) || json.Unmarshal(raw, &q.MultiSelect) != nil {
			return Question{}, fmt.Errorf(textNotBool, argMultiSelect)
		}
	}
	raw, ok := fields[argOptions]
	if !ok {
		return Question{}, fmt.Errorf(textFieldMissing, argOptions)
	}
	var elems []json.RawMessage
	if jsonin.IsNull(raw) || json.Unmarshal(raw, &elems) != nil {
		return Question{}, fmt.Errorf(textNotList, argOptions)
	}
	if len(elems) < MinOptions || len(elems) > MaxOptions {
		return Question{}, fmt.Errorf(textOptionCount, len(elems), MinOptions, MaxOptions)
	}
	seen := map[string]int{}
	for i, e := range elems {
		o, err := decodeOption(e)
		if err != nil {
			return Question{}, fmt.Errorf(textOptionN+": %w", i+1, err)
		}
		key := strings.ToLower(strings.TrimSpace(o.Label))
		if first, dup := seen[key]; dup {
			return Question{}, fmt.Errorf(textDuplicateLabel, i+1, o.Label, first+1)
		}
		seen[key] = i
		q.Options = append(q.Options, o)
	}
	return q, nil
}

// decodeOption reads one option.
func decodeOption(raw json.RawMessage) (Option, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return Option{}, errors.New(textNotObjectPart)
	}
	if extra := jsonin.Unknown(fields, argLabel, argDescription); extra != "" {
		return Option{}, fmt.Errorf(textUnknownOption, extra)
	}
	var o Option
	var err error
	if o.Label, err = text(fields, argLabel, MaxLabelSize, false); err != nil {
		return Option{}, err
	}
	if strings.EqualFold(strings.TrimSpace(o.Label), otherLabel) {
		return Option{}, errors.New(textOtherLabel)
	}
	if o.Description, err = text(fields, argDescription, MaxDescriptionSize, true); err != nil {
		return Option{}, err
	}
	return o, nil
}

// text returns the required string field key: non-blank, at most max
// bytes, without control characters (but line breaks and tabs when breaks
// is set), trimmed.
func text(fields map[string]json.RawMessage, key string, max int, breaks bool) (string, error) {
	raw, ok := fields[key]
	if !ok {
		return "", fmt.Errorf(textFieldMissing, key)
	}
	var s string
	if jsonin.IsNull(raw) || json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf(textNotString, key)
	}
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", fmt.Errorf(textBlank, key)
	case len(s) > max:
		return "", fmt.Errorf(textTooLong, key, len(s), max)
	case hasControl(s, breaks):
		return "", fmt.Errorf(textControl, key)
	}
	return s, nil
}

// hasControl reports control characters (C0, DEL, C1), invalid UTF-8 or
// bidirectional overrides in s; breaks allows line breaks and tabs.
func hasControl(s string, breaks bool) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		switch {
		case breaks && (r == '\n' || r == '\t'):
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return true
		case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			return true
		}
	}
	return false
}

// checkQuestions checks questions read back from the log as DecodeInput
// would have made them.
func checkQuestions(qs []Question) error {
	if len(qs) == 0 || len(qs) > MaxQuestions {
		return errors.New(problemAskPayload)
	}
	data, err := json.Marshal(map[string]any{argQuestions: inputOf(qs)})
	if err != nil {
		return errors.New(problemAskPayload)
	}
	back, err := DecodeInput(data)
	if err != nil {
		return err
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
