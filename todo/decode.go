package todo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Input fields of todo_write.
const (
	argTodos     = "todos"
	argID        = "id"
	argContent   = "content"
	argStatus    = "status"
	argPriority  = "priority"
	argCreatedAt = "created_at"
	argUpdatedAt = "updated_at"
)

// ErrBadWrite is wrapped by every error of [DecodeWrite].
var ErrBadWrite = errors.New(textBadWrite)

// DecodeWrite reads and checks the input of todo_write: {"todos": [item,
// ...]} with at most maxItems items (at most [MaxItems]), each with a
// unique non-blank id (at most [MaxIDSize] bytes, no control characters),
// non-blank content (at most [MaxContentSize] bytes, no control characters
// but line breaks and tabs), a status and a priority from their enums, and
// at most one item in progress. created_at and updated_at may be given (a
// model often sends back what todo_read returned) and are ignored: the
// plugin sets them. Keys match exactly and any other key is an error. The
// error wraps [ErrBadWrite] and names the item and the field.
func DecodeWrite(input json.RawMessage, maxItems int) ([]Item, error) {
	maxItems = min(maxItems, MaxItems)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(input, &top); err != nil || top == nil {
		return nil, fmt.Errorf("%w: %s", ErrBadWrite, textNotObject)
	}
	if extra := unknownKeys(top, argTodos); extra != "" {
		return nil, fmt.Errorf("%w: "+textUnknownTop, ErrBadWrite, extra)
	}
	raw, ok := top[argTodos]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrBadWrite, textTodosMissing)
	}
	var elems []json.RawMessage
	if isNull(raw) || json.Unmarshal(raw, &elems) != nil {
		return nil, fmt.Errorf("%w: %s", ErrBadWrite, textTodosNotList)
	}
	if len(elems) > maxItems {
		return nil, fmt.Errorf("%w: "+textTooManyItems, ErrBadWrite, len(elems), maxItems)
	}
	items := make([]Item, 0, len(elems))
	ids := make(map[string]int, len(elems))
	inProgress := -1
	for i, e := range elems {
		it, err := decodeItem(e)
		if err != nil {
			return nil, fmt.Errorf("%w: "+textItem+": %w", ErrBadWrite, i+1, err)
		}
		if first, dup := ids[it.ID]; dup {
			return nil, fmt.Errorf("%w: "+textDuplicateID, ErrBadWrite, i+1, it.ID, first+1)
		}
		ids[it.ID] = i
		if it.Status == StatusInProgress {
			if inProgress >= 0 {
				return nil, fmt.Errorf("%w: "+textTwoInProgress, ErrBadWrite, inProgress+1, i+1)
			}
			inProgress = i
		}
		items = append(items, it)
	}
	return items, nil
}

// decodeItem reads one item of a write.
func decodeItem(raw json.RawMessage) (Item, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return Item{}, errors.New(textItemNotObject)
	}
	if extra := unknownKeys(fields, argID, argContent, argStatus, argPriority, argCreatedAt, argUpdatedAt); extra != "" {
		return Item{}, fmt.Errorf(textUnknownItem, extra)
	}
	var it Item
	var err error
	if it.ID, err = stringField(fields, argID); err != nil {
		return Item{}, err
	}
	switch {
	case strings.TrimSpace(it.ID) == "":
		return Item{}, errors.New(textIDBlank)
	case len(it.ID) > MaxIDSize:
		return Item{}, fmt.Errorf(textIDTooLong, len(it.ID), MaxIDSize)
	case hasControl(it.ID, false):
		return Item{}, errors.New(textIDControl)
	}
	if it.Content, err = stringField(fields, argContent); err != nil {
		return Item{}, err
	}
	switch {
	case strings.TrimSpace(it.Content) == "":
		return Item{}, errors.New(textContentBlank)
	case len(it.Content) > MaxContentSize:
		return Item{}, fmt.Errorf(textContentTooLong, len(it.Content), MaxContentSize)
	case hasControl(it.Content, true):
		return Item{}, errors.New(textContentControl)
	}
	s, err := stringField(fields, argStatus)
	if err != nil {
		return Item{}, err
	}
	switch it.Status = Status(s); it.Status {
	case StatusPending, StatusInProgress, StatusCompleted:
	default:
		return Item{}, fmt.Errorf(textBadStatus, s)
	}
	p, err := stringField(fields, argPriority)
	if err != nil {
		return Item{}, err
	}
	switch it.Priority = Priority(p); it.Priority {
	case PriorityHigh, PriorityMedium, PriorityLow:
	default:
		return Item{}, fmt.Errorf(textBadPriority, p)
	}
	return it, nil
}

// stringField returns the required string field key.
func stringField(fields map[string]json.RawMessage, key string) (string, error) {
	raw, ok := fields[key]
	if !ok {
		return "", fmt.Errorf(textFieldMissing, key)
	}
	var s string
	if isNull(raw) || json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf(textFieldNotString, key)
	}
	return s, nil
}

// unknownKeys lists the keys of fields not among known, quoted and sorted,
// or "".
func unknownKeys(fields map[string]json.RawMessage, known ...string) string {
	var extra []string
	for k := range fields {
		if !slices.Contains(known, k) {
			extra = append(extra, fmt.Sprintf("%q", k))
		}
	}
	slices.Sort(extra)
	return strings.Join(extra, ", ")
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// hasControl reports control characters (C0, DEL, C1) or invalid UTF-8 in
// s; breaks allows line breaks and tabs.
func hasControl(s string, breaks bool) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if breaks && (r == '\n' || r == '\t' || r == '\r') {
			continue
		}
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return true
		}
	}
	return false
}
