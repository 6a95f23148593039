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

// keyPath is the key path of a node: its keys, each after a dot, and its
// list indexes in brackets. Walks extend it with append, so siblings share
// its array and a deep tree costs no more than its size; render it before
// the walk moves on.
type keyPath []string

// key returns the path of the value under mapping key k.
func (p keyPath) key(k *yaml.Node) keyPath { return append(p, "."+keyName(k)) }

// item returns the path of list item i.
func (p keyPath) item(i int) keyPath { return append(p, "["+strconv.Itoa(i)+"]") }

// String renders the path, such as "deep[0].a".
func (p keyPath) String() string {
	if len(p) > maxPathParts {
		head := maxPathParts / 3
		p = append(append(p[:head:head], ".…"), p[len(p)-(maxPathParts-head):]...)
	}
	return strings.TrimPrefix(strings.Join(p, ""), ".")
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
