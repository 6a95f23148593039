package todo

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dshgo/planmode/internal/jsonin"
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
	items, err := decodeWrite(input, min(maxItems, MaxItems))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadWrite, err)
	}
	return items, nil
}

func decodeWrite(input json.RawMessage, maxItems int) ([]Item, error) {
	top, ok := jsonin.Object(input)
	if !ok {
		return nil, errors.New(textNotObject)
	}
	if extra := jsonin.Unknown(top, argTodos); extra != "" {
		return nil, fmt.Errorf(textUnknownTop, extra)
	}
	elems, err := jsonin.List(top, argTodos)
	if err != nil {
		return nil, err
	}
	if len(elems) > maxItems {
		return nil, fmt.Errorf(textTooManyItems, len(elems), maxItems)
	}
	items := make([]Item, len(elems))
	ids := make(map[string]int, len(elems))
	inProgress := -1
	for i, e := range elems {
		it := &items[i]
		if *it, err = decodeItem(e); err != nil {
			return nil, fmt.Errorf(textItem+": %w", i+1, err)
		}
		if first, dup := ids[it.ID]; dup {
			return nil, fmt.Errorf(textDuplicateID, i+1, it.ID, first+1)
		}
		ids[it.ID] = i
		if it.Status == StatusInProgress {
			if inProgress >= 0 {
				return nil, fmt.Errorf(textTwoInProgress, inProgress+1, i+1)
			}
			inProgress = i
		}
	}
	return items, nil
}

// decodeItem reads one item of a write.
func decodeItem(raw json.RawMessage) (it Item, err error) {
	fields, ok := jsonin.Object(raw)
	if !ok {
		return Item{}, errors.New(textItemNotObject)
	}
	if extra := jsonin.Unknown(fields, argID, argContent, argStatus, argPriority, argCreatedAt, argUpdatedAt); extra != "" {
		return Item{}, fmt.Errorf(textUnknownItem, extra)
	}
	if it.ID, err = jsonin.String(fields, argID); err != nil {
		return Item{}, err
	}
	switch {
	case strings.TrimSpace(it.ID) == "":
		return Item{}, errors.New(textIDBlank)
	case len(it.ID) > MaxIDSize:
		return Item{}, fmt.Errorf(textIDTooLong, len(it.ID), MaxIDSize)
	case jsonin.HasControl(it.ID, ""):
		return Item{}, errors.New(textIDControl)
	}
	if it.Content, err = jsonin.String(fields, argContent); err != nil {
		return Item{}, err
	}
	switch {
	case strings.TrimSpace(it.Content) == "":
		return Item{}, errors.New(textContentBlank)
	case len(it.Content) > MaxContentSize:
		return Item{}, fmt.Errorf(textContentTooLong, len(it.Content), MaxContentSize)
	case jsonin.HasControl(it.Content, "\n\r\t"):
		return Item{}, errors.New(textContentControl)
	}
	s, err := jsonin.String(fields, argStatus)
	if err != nil {
		return Item{}, err
	}
	switch it.Status = Status(s); it.Status {
	case StatusPending, StatusInProgress, StatusCompleted:
	default:
		return Item{}, fmt.Errorf(textBadStatus, s)
	}
	p, err := jsonin.String(fields, argPriority)
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
