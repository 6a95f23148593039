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

// keyPath is the key path of a node: its keys and, in brackets, list
// indexes. Walks extend it with append, so siblings share its array and a
// deep tree costs no more than its size; render it before the walk moves on.
type keyPath []string

// key returns the path of the value under mapping key k.
func (p keyPath) key(k *yaml.Node) keyPath { return append(p, keyName(k)) }

// item returns the path of list item i.
func (p keyPath) item(i int) keyPath { return append(p, "["+strconv.Itoa(i)+"]") }

// String renders the path: keys joined by dots, list indexes in brackets.
func (p keyPath) String() string {
	if len(p) > maxPathParts {
		head := maxPathParts / 3
		p = append(append(p[:head:head], "…"), p[len(p)-(maxPathParts-head):]...)
	}
	var b strings.Builder
	for _, s := range p {
		if b.Len() > 0 && s[0] != '[' {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
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
