// Package pluginconf decodes a companion plugin's configuration node
// strictly: a mapping of known keys (or an empty entry), each value checked
// for its YAML type and range, every problem a [*deploy.FieldError] at the
// offending node, so the loader reports FILE:LINE:COL.
package pluginconf

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dshgo/planmode/deploy"
	"gopkg.in/yaml.v3"
)

// Field is one key of a configuration.
type Field struct {
	// Key is the YAML key.
	Key string
	// Decode reads the value node into its destination and returns the
	// problem in words, or "".
	Decode func(v *yaml.Node) (problem string)
}

// Decode checks node (the value under the plugin's name: a mapping, null
// for an empty entry, or a document wrapping one) against fields: unknown
// keys, keys that are not strings, keys given twice and bad values are each
// a FieldError; several are joined. Keys left out keep whatever their
// destination held (the caller's defaults).
func Decode(node *yaml.Node, fields ...Field) error {
	if node != nil && node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
		node = node.Content[0]
	}
	if node == nil || node.Kind == 0 || node.Kind == yaml.ScalarNode && node.ShortTag() == "!!null" {
		return nil
	}
	if node.Kind != yaml.MappingNode {
		return deploy.FieldErrorAt(node, "", fmt.Sprintf(problemNotMapping, keyList(fields), deploy.Describe(node)))
	}
	byKey := make(map[string]Field, len(fields))
	for _, f := range fields {
		byKey[f.Key] = f
	}
	seen := map[string]*yaml.Node{}
	var errs []error
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := node.Content[i], node.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			errs = append(errs, deploy.FieldErrorAt(k, "", fmt.Sprintf(problemKeyNotString, deploy.Describe(k))))
			continue
		}
		f, ok := byKey[k.Value]
		if !ok {
			errs = append(errs, deploy.FieldErrorAt(k, k.Value, fmt.Sprintf(problemUnknownKey, keyList(fields))))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			errs = append(errs, deploy.FieldErrorAt(k, k.Value, fmt.Sprintf(problemDuplicate, first.Line, first.Column)))
			continue
		}
		seen[k.Value] = k
		if p := f.Decode(v); p != "" {
			errs = append(errs, deploy.FieldErrorAt(v, k.Value, p))
		}
	}
	return errors.Join(errs...)
}

// Int decodes an integer between lo and hi (inclusive) into dst.
func Int(dst *int, lo, hi int) func(*yaml.Node) string {
	return func(v *yaml.Node) string {
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" {
			return fmt.Sprintf(problemNotInt, lo, hi, deploy.Describe(v))
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(v.Value, "_", ""), 0, 64)
		if err != nil || n < int64(lo) || n > int64(hi) {
			return fmt.Sprintf(problemIntRange, lo, hi, v.Value)
		}
		*dst = int(n)
		return ""
	}
}

// Bool decodes a boolean into dst.
func Bool(dst *bool) func(*yaml.Node) string {
	return func(v *yaml.Node) string {
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" {
			return fmt.Sprintf(problemNotBool, deploy.Describe(v))
		}
		var b bool
		if err := v.Decode(&b); err != nil {
			return fmt.Sprintf(problemNotBool, deploy.Describe(v))
		}
		*dst = b
		return ""
	}
}

// keyList names the keys for error messages, sorted.
func keyList(fields []Field) string {
	keys := make([]string, len(fields))
	for i, f := range fields {
		keys[i] = f.Key
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}
