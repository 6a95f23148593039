package deploy

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// maxPathParts is the most segments a rendered key path shows; deeper paths
// keep their first and last segments around an ellipsis.
const maxPathParts = 12

// keyPath is the key path of a node, as a chain to its root. It is rendered
// only when an error needs it, so walking a deep tree stays linear.
type keyPath struct {
	parent *keyPath
	key    *yaml.Node // mapping key; nil for a list index or a literal name
	name   string     // literal name (such as "plugins") when key is nil and index < 0
	index  int        // list index when key is nil
}

// literalPath is a one-segment path naming a fixed key.
func literalPath(name string) *keyPath { return &keyPath{name: name, index: -1} }

// child returns the path of the value under mapping key k.
func (p *keyPath) child(k *yaml.Node) *keyPath { return &keyPath{parent: p, key: k} }

// item returns the path of list item i.
func (p *keyPath) item(i int) *keyPath { return &keyPath{parent: p, index: i} }

// String renders the path: keys joined by dots, list indexes in brackets.
// The empty path renders as "".
func (p *keyPath) String() string {
	var parts []*keyPath
	for q := p; q != nil; q = q.parent {
		parts = append(parts, q)
	}
	slices.Reverse(parts)
	if len(parts) > maxPathParts {
		head, tail := maxPathParts/3, maxPathParts-maxPathParts/3
		elided := append(parts[:head:head], &keyPath{name: "…", index: -1})
		parts = append(elided, parts[len(parts)-tail:]...)
	}
	var b strings.Builder
	for _, q := range parts {
		switch {
		case q.key == nil && q.index >= 0:
			b.WriteString("[" + strconv.Itoa(q.index) + "]")
			continue
		case b.Len() > 0:
			b.WriteByte('.')
		}
		if q.key != nil {
			b.WriteString(keyName(q.key))
		} else {
			b.WriteString(q.name)
		}
	}
	return b.String()
}

// keyName renders a mapping key for a key path, quoting keys that would
// otherwise be ambiguous or span lines.
func keyName(k *yaml.Node) string {
	name := k.Value
	switch {
	case k.Kind != yaml.ScalarNode:
		return "(" + Describe(k) + " key)"
	case name == "" || strings.ContainsAny(name, " .[]\"\t\r\n") || !utf8.ValidString(name):
		return strconv.Quote(name)
	}
	return name
}
