// Package yamlcfg decodes the small, strict YAML configurations of the
// companion plugins: a mapping of known keys whose values are checked one by
// one, every problem a [*deploy.FieldError] carrying the offending node's
// line and column.
package yamlcfg

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dshgo/planmode/deploy"
	"gopkg.in/yaml.v3"
)

// Problem texts, for the YAML author.
const (
	problemNotMapping   = "the configuration must be a mapping with the %s, got %s"
	problemNoKeys       = "the plugin takes no configuration: leave its entry empty, got %s"
	problemKeyNotString = "keys must be strings, got %s"
	problemUnknownKey   = "unknown key (%s)"
	problemRequired     = "is required: %s"
	problemNotString    = "must be a string, got %s"
	problemBlank        = "must not be blank"
	problemNotInt       = "must be a whole number, got %s"
	problemRange        = "must be between %d and %d, got %d"
	problemNotList      = "must be a list, got %s"
	problemEmptyList    = "must list at least one item"
	problemNotOneOf     = "must be one of %s, got %q"
	problemRepeated     = "lists %q twice"
	problemNotBool      = "must be true or false, got %s"
	// problemGoRange is the problem of a number out of range in a
	// configuration built in Go.
	problemGoRange = "must be a whole number from %d to %d, got %d"
)

// Mapping is a decoded configuration mapping: its values by key, with the
// problems found so far.
type Mapping struct {
	node   *yaml.Node
	values map[string]*yaml.Node
	errs   []error
}

// Decode reads node (the value under the plugin's name: a mapping, null, or
// a document wrapping one) as a mapping whose keys are among keys. Unknown,
// non-string and repeated keys are problems. A null node is an empty
// mapping.
func Decode(node *yaml.Node, keys ...string) *Mapping {
	if node != nil && node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
		node = node.Content[0]
	}
	m := &Mapping{node: node, values: map[string]*yaml.Node{}}
	withKeys, known := "keys "+strings.Join(keys, ", "), "the keys are "+strings.Join(keys, ", ")
	if len(keys) == 1 {
		withKeys, known = "key "+keys[0], "the only key is "+keys[0]
	}
	switch {
	case node == nil, node.Kind == 0, node.Kind == yaml.ScalarNode && node.ShortTag() == "!!null":
		return m
	case node.Kind != yaml.MappingNode && len(keys) == 0:
		m.FailAt(node, "", fmt.Sprintf(problemNoKeys, deploy.Describe(node)))
		return m
	case node.Kind != yaml.MappingNode:
		m.FailAt(node, "", fmt.Sprintf(problemNotMapping, withKeys, deploy.Describe(node)))
		return m
	}
	firsts := map[string]*yaml.Node{} // the first key of each name
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := node.Content[i], node.Content[i+1]
		switch first := firsts[k.Value]; {
		case k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str":
			m.FailAt(k, "", fmt.Sprintf(problemKeyNotString, deploy.Describe(k)))
		case len(keys) == 0:
			m.FailAt(k, k.Value, fmt.Sprintf(problemNoKeys, "a key"))
		case !slices.Contains(keys, k.Value):
			m.FailAt(k, k.Value, fmt.Sprintf(problemUnknownKey, known))
		case first != nil:
			m.FailAt(k, k.Value, deploy.DuplicateKey(first))
		default:
			firsts[k.Value], m.values[k.Value] = k, v
		}
	}
	return m
}

// FailAt records a problem at node n under key; a nil n gives no position.
func (m *Mapping) FailAt(n *yaml.Node, key, problem string) {
	m.errs = append(m.errs, deploy.FieldErrorAt(n, key, problem))
}

// Require records a problem for key when it is missing; what says what
// the key is for.
func (m *Mapping) Require(key, what string) bool {
	if m.values[key] != nil {
		return true
	}
	m.FailAt(m.node, key, fmt.Sprintf(problemRequired, what))
	return false
}

// String returns key's value as a non-blank string. A missing key returns
// "" with no problem.
func (m *Mapping) String(key string) string {
	v := m.values[key]
	if v == nil {
		return ""
	}
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
		m.FailAt(v, key, fmt.Sprintf(problemNotString, deploy.Describe(v)))
		return ""
	}
	if strings.TrimSpace(v.Value) == "" {
		m.FailAt(v, key, problemBlank)
		return ""
	}
	return v.Value
}

// Int returns key's value as an integer between lo and hi; def when the key
// is missing.
func (m *Mapping) Int(key string, def, lo, hi int64) int64 {
	v := m.values[key]
	if v == nil {
		return def
	}
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" {
		m.FailAt(v, key, fmt.Sprintf(problemNotInt, deploy.Describe(v)))
		return def
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(v.Value, "_", ""), 0, 64)
	if err != nil {
		m.FailAt(v, key, fmt.Sprintf(problemNotInt, strconv.Quote(v.Value)))
		return def
	}
	if n < lo || n > hi {
		m.FailAt(v, key, fmt.Sprintf(problemRange, lo, hi, n))
		return def
	}
	return n
}

// Bool returns key's value as a boolean (YAML true or false); def when the
// key is missing.
func (m *Mapping) Bool(key string, def bool) bool {
	v := m.values[key]
	if v == nil {
		return def
	}
	b, err := strconv.ParseBool(v.Value)
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" || err != nil {
		m.FailAt(v, key, fmt.Sprintf(problemNotBool, deploy.Describe(v)))
		return def
	}
	return b
}

// Strings returns key's value as a non-empty list of distinct strings;
// when allowed is not empty each must be one of them. A missing key
// returns nil with no problem.
func (m *Mapping) Strings(key string, allowed ...string) []string {
	v := m.values[key]
	if v == nil {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		m.FailAt(v, key, fmt.Sprintf(problemNotList, deploy.Describe(v)))
		return nil
	}
	if len(v.Content) == 0 {
		m.FailAt(v, key, problemEmptyList)
		return nil
	}
	var out []string
	before := len(m.errs)
	for i, item := range v.Content {
		where := fmt.Sprintf("%s[%d]", key, i)
		switch {
		case item.Kind != yaml.ScalarNode || item.ShortTag() != "!!str" || strings.TrimSpace(item.Value) == "":
			m.FailAt(item, where, fmt.Sprintf(problemNotString, deploy.Describe(item)))
		case len(allowed) > 0 && !slices.Contains(allowed, item.Value):
			m.FailAt(item, where, fmt.Sprintf(problemNotOneOf, strings.Join(allowed, ", "), item.Value))
		case slices.Contains(out, item.Value):
			m.FailAt(item, where, fmt.Sprintf(problemRepeated, item.Value))
		default:
			out = append(out, item.Value)
		}
	}
	if len(m.errs) > before {
		return nil
	}
	return out
}

// OneOf returns key's value, a string among allowed; "" when missing.
func (m *Mapping) OneOf(key string, allowed ...string) string {
	s := m.String(key)
	if s != "" && !slices.Contains(allowed, s) {
		m.FailAt(m.values[key], key, fmt.Sprintf(problemNotOneOf, strings.Join(allowed, ", "), s))
		return ""
	}
	return s
}

// Node returns key's value node, nil when missing.
func (m *Mapping) Node(key string) *yaml.Node { return m.values[key] }

// Errs returns the problems found, nil when there are none.
func (m *Mapping) Errs() []error { return m.errs }

// DecodeInt decodes a configuration whose one key, key, is optional and
// holds an integer between lo and hi (def when missing). The error joins
// the problems, as [Mapping.Errs] lists them.
func DecodeInt(node *yaml.Node, key string, def, lo, hi int) (int, error) {
	m := Decode(node, key)
	n := int(m.Int(key, int64(def), int64(lo), int64(hi)))
	if errs := m.Errs(); len(errs) > 0 {
		return 0, errors.Join(errs...)
	}
	return n, nil
}

// CheckInt checks key's value v of a configuration built in Go: outside lo
// to hi it returns a [*deploy.FieldError] without a position.
func CheckInt(key string, v, lo, hi int) error {
	if v < lo || v > hi {
		return &deploy.FieldError{Key: key, Problem: fmt.Sprintf(problemGoRange, lo, hi, v)}
	}
	return nil
}
