// Package jsonin holds the small checks the plugins' tools share when they
// read a model's JSON input with exact keys: which keys are unknown, and
// whether a value is JSON null.
package jsonin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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
