// Package jsonin reads a model's JSON input with exact keys and errors
// worded for the model: which keys are unknown, which are missing or of
// the wrong type, and whether text holds control characters.
package jsonin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// Unknown returns the keys of fields that are not among known, each
// quoted, sorted and joined by ", "; "" when there are none.
func Unknown(fields map[string]json.RawMessage, known ...string) string {
	return UnknownFunc(fields, func(k string) bool { return slices.Contains(known, k) })
}

// UnknownFunc is [Unknown] with known as a func that reports a known key.
func UnknownFunc(fields map[string]json.RawMessage, known func(key string) bool) string {
	var extra []string
	for k := range fields {
		if !known(k) {
			extra = append(extra, fmt.Sprintf("%q", k))
		}
	}
	slices.Sort(extra)
	return strings.Join(extra, ", ")
}

// IsNull reports whether raw is the JSON null (white space around it
// allowed).
func IsNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// Object reads raw as a JSON object; ok is false when it is not one.
func Object(raw json.RawMessage) (fields map[string]json.RawMessage, ok bool) {
	return fields, json.Unmarshal(raw, &fields) == nil && fields != nil
}

// String returns the string under key, which must be there.
func String(fields map[string]json.RawMessage, key string) (string, error) {
	var s string
	return s, required(fields, key, &s, "a string")
}

// List returns the list under key, which must be there.
func List(fields map[string]json.RawMessage, key string) ([]json.RawMessage, error) {
	var l []json.RawMessage
	return l, required(fields, key, &l, "a list")
}

func required(fields map[string]json.RawMessage, key string, v any, what string) error {
	raw, ok := fields[key]
	switch {
	case !ok:
		return fmt.Errorf("%q is missing", key)
	case IsNull(raw) || json.Unmarshal(raw, v) != nil:
		return fmt.Errorf("%q is not %s", key, what)
	}
	return nil
}

// HasControl reports invalid UTF-8, a control character (C0, DEL, C1) not
// in allow, or a bidirectional override in s.
func HasControl(s, allow string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		switch {
		case strings.ContainsRune(allow, r):
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return true
		case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			return true
		}
	}
	return false
}

// Strict decodes data, one JSON object, into v strictly: nothing but the
// object, no unknown key. The error names what data is and the problem,
// for a model: "<what> is empty", `"key" is not a string` (or a number, a
// list, ...), "<what> does not decode: ...", "<what> has data after its
// JSON value".
func Strict(what string, data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 || IsNull(data) {
		return fmt.Errorf("%s is empty", what)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("%q is not %s", te.Field, kind(te.Type))
		}
		return fmt.Errorf("%s does not decode: %s", what, strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return fmt.Errorf("%s has data after its JSON value", what)
	}
	return nil
}

// kind names the JSON kind of values of t.
func kind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a number"
}
