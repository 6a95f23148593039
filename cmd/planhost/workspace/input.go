package workspace

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// decodeInput decodes the tool arguments strictly into v: unknown keys,
// trailing data and wrong types are errors naming what was wrong.
func decodeInput(input json.RawMessage, v any) error {
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: "+msgInput, ErrBadInput, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: "+msgInput, ErrBadInput, "trailing data after the JSON object")
	}
	return nil
}

// required checks that a required string argument was given.
func required(name string, v *string) error {
	if v == nil {
		return fmt.Errorf("%w: "+msgMissing, ErrBadInput, name)
	}
	return nil
}
