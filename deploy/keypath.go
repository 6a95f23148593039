package deploy

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// maxPathParts is the most segments a rendered key path shows; deeper paths
// keep their first and last segments around an ellipsis.
const maxPathParts = 12

// keyPath is the key path of a node: the mapping keys and list indexes
// that lead to it. Walks extend it with append, so siblings share its
// array and walking costs nothing until a path is rendered for an error;
// render it before the walk moves on.
type keyPath []pathStep

// pathStep is a mapping key or, when key is nil, a list index.
type pathStep struct {
	key   *yaml.Node
	index int
}

// key returns the path of the value under mapping key k.
func (p keyPath) key(k *yaml.Node) keyPath { return append(p, pathStep{key: k}) }

// item returns the path of list item i.
func (p keyPath) item(i int) keyPath { return append(p, pathStep{index: i}) }

// String renders the path, such as "deep[0].a": keys after dots, list
// indexes in brackets.
func (p keyPath) String() string {
	parts := make([]string, len(p))
	for i, s := range p {
		parts[i] = "[" + strconv.Itoa(s.index) + "]"
		if s.key != nil {
			parts[i] = "." + keyName(s.key)
		}
	}
	if len(parts) > maxPathParts {
		head := maxPathParts / 3
		parts = append(append(parts[:head:head], ".…"), parts[len(parts)-(maxPathParts-head):]...)
	}
	return strings.TrimPrefix(strings.Join(parts, ""), ".")
}

// keyName renders a mapping key for a key path, quoting keys that would
// otherwise be ambiguous or span lines.
func keyName(k *yaml.Node) string {
	switch {
	case k.Kind != yaml.ScalarNode:
		return "(" + Describe(k) + " key)"
	case k.Value == "" || strings.ContainsAny(k.Value, " .[]\"\t\r\n") || !utf8.ValidString(k.Value):
		return strconv.Quote(k.Value)
	}
	return k.Value
}
