package deploy

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// ErrBadPlugin means the program passed an invalid set of plugins to [Load]
// or [Parse]: a plugin without a name or without a Load func, or two plugins
// with the same name. It is a programming error, not a problem in the file.
var ErrBadPlugin = errors.New("bad plugin registration")

// keyPlugins is the one top-level key of a deployment file.
const keyPlugins = "plugins"

// maxErrors is the most errors one load reports. Further errors are replaced
// by a last "too many errors" entry.
const maxErrors = 20

// User-facing texts of this package. Format verbs are filled in by the loader.
const (
	msgTooLarge          = "file is larger than the 1 MiB limit"
	msgEmpty             = "no plugins mapping: the file is empty (write \"plugins: {}\" to enable no plugins)"
	msgNoPlugins         = "no plugins mapping: the top level needs the key \"plugins\""
	msgPluginsNull       = "is empty: list the plugins to enable under it, or write \"plugins: {}\" to enable no plugins"
	msgTopLevelKind      = "the top level must be a mapping with the key \"plugins\", not %s"
	msgUnknownTopKey     = "unknown top-level key %q (the only key is \"plugins\")"
	msgTopKeyKind        = "top-level keys must be plain strings, not %s"
	msgPluginsKind       = "must be a mapping of plugin name to configuration, not %s"
	msgPluginNameKind    = "plugin names must be plain strings, not %s"
	msgUnknownPlugin     = "unknown plugin %q (known plugins: %s)"
	msgNoKnownPlugins    = "unknown plugin %q (this program offers no plugins)"
	msgDuplicatePlugin   = "duplicate plugin %q (first at line %d, column %d)"
	msgDuplicateKey      = "duplicate key (first at line %d, column %d)"
	msgDuplicateTopKey   = "duplicate key %q (first at line %d, column %d)"
	msgEntryKind         = "configuration must be a mapping or empty, not %s"
	msgAnchor            = "anchors (&%s) are not supported; write the value out in full"
	msgAlias             = "aliases (*%s) are not supported; write the value out in full"
	msgSecondDocument    = "a second YAML document is not allowed; a deployment file holds one document"
	msgTooManyErrors     = "too many errors; stopped after %d"
	msgSyntax            = "invalid YAML: "
	msgTab               = "tab character in indentation; indent with spaces"
	msgUTF16             = "file is UTF-16; save it as UTF-8"
	msgBadUTF8           = "invalid UTF-8; the file must be UTF-8 text"
	msgControlChar       = "control character %U is not allowed"
	msgTypeMismatch      = "expected %s, got %s"
	msgBadPluginName     = "plugin %d has no name"
	msgBadPluginLoad     = "plugin %q has no Load func"
	msgDuplicateRegister = "plugin %q is offered twice"
	msgRequires          = "needs the plugin %q: enable it under plugins (add \"%s:\" with its configuration)"
)

// syntaxWords puts a syntax message of the YAML library in the operator's
// words; a message not listed is passed through.
func syntaxWords(msg string) string {
	words := map[string]string{
		"did not find expected key":                              "expected a key (check the indentation of this mapping and the lines below it)",
		"did not find expected '-' indicator":                    "expected a '-' list item (check the indentation of this list and the lines below it)",
		"did not find expected node content":                     "expected a value",
		"did not find expected ',' or ']'":                       "unclosed '[': expected ',' or ']'",
		"did not find expected ',' or '}'":                       "unclosed '{': expected ',' or '}'",
		"did not find expected <document start>":                 "expected the start of a document",
		"found incompatible YAML document":                       "unsupported %YAML version",
		"exceeded max depth of 10000":                            "nested too deeply",
		"found character that cannot start any token":            "this character cannot start a value; quote the value",
		"mapping values are not allowed in this context":         "unexpected ':' (check the indentation, or quote a value that contains \": \")",
		"could not find expected ':'":                            "missing ':' after a key",
		"found unexpected end of stream":                         "unexpected end of file (unclosed quote?)",
		"block sequence entries are not allowed in this context": "a '-' list item is not allowed here (check the indentation)",
		"mapping keys are not allowed in this context":           "a key is not allowed here (check the indentation)",
		"found unknown escape character":                         "unknown escape sequence in a double-quoted string",
		"found unexpected document indicator":                    "unexpected document marker ('---' or '...') inside a value",
	}
	return cmp.Or(words[msg], msg)
}

// Error is one problem found while loading a deployment file. Its text is
// "FILE:LINE:COL: PLUGIN: KEY: PROBLEM"; PLUGIN and KEY are left out (with
// their separators) when empty. Line and Column are 1-based.
type Error struct {
	File    string // file name as given to Load or Parse
	Line    int    // 1-based line
	Column  int    // 1-based column, in characters
	Plugin  string // plugin whose configuration is at fault, if any
	Key     string // key at fault, relative to the plugin's configuration when Plugin is set
	Problem string // what is wrong

	err error // the plugin's own error, when it returned one
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, joinParts(e.Plugin, e.Key, e.Problem))
}

// Unwrap returns the error a plugin's Load returned for this problem, or nil.
func (e *Error) Unwrap() error { return e.err }

// FieldError is a configuration problem a plugin's Load reports. The loader
// adds the file name and the plugin name. A zero Line means the position is
// unknown; the loader then uses the position of the plugin's entry.
type FieldError struct {
	Line    int    // 1-based line of the offending node, or 0
	Column  int    // 1-based column of the offending node, or 0
	Key     string // key at fault, relative to the plugin's configuration
	Problem string // what is wrong and what was expected
}

// Error implements error: "LINE:COL: KEY: PROBLEM", leaving out the position
// when it is unknown and the key when it is empty.
func (e *FieldError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, joinParts(e.Key, e.Problem))
	}
	return joinParts(e.Key, e.Problem)
}

// joinParts joins the parts of an error text that are not empty with ": ".
func joinParts(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), ": ")
}

// DuplicateKey is the problem text for a key given a second time in one
// mapping, naming where the first one is. The loader reports duplicates in
// these words, and plugins that decode their own node use it too, so a
// duplicate reads the same whichever finds it.
func DuplicateKey(first *yaml.Node) string {
	return fmt.Sprintf(msgDuplicateKey, first.Line, first.Column)
}

// FieldErrorAt returns a FieldError positioned at node (which may be nil for
// an unknown position).
func FieldErrorAt(node *yaml.Node, key, problem string) *FieldError {
	fe := &FieldError{Key: key, Problem: problem}
	if node != nil {
		fe.Line, fe.Column = node.Line, node.Column
	}
	return fe
}

// Describe names the kind of a YAML value for error messages, with an
// article: "a mapping", "a list", "a string", "a number", "a boolean",
// "null", "an alias", or "a value tagged !x" for other tags.
func Describe(node *yaml.Node) string {
	switch {
	case node == nil:
		return "nothing"
	case node.Kind == yaml.MappingNode:
		return "a mapping"
	case node.Kind == yaml.SequenceNode:
		return "a list"
	case node.Kind == yaml.AliasNode:
		return "an alias"
	case node.Kind == yaml.DocumentNode:
		return "a document"
	case node.Kind == yaml.ScalarNode:
		return describeTag(node.ShortTag())
	}
	return "an unknown value"
}

// describeTag names the kind of a value with the short tag tag.
func describeTag(tag string) string {
	switch tag {
	case "!!map":
		return "a mapping"
	case "!!seq":
		return "a list"
	case "!!str":
		return "a string"
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "null"
	case "!!timestamp":
		return "a timestamp"
	case "!!binary":
		return "binary data"
	}
	return "a value tagged " + tag
}
