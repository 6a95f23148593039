package deploy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ErrBadPlugin means the program passed an invalid set of plugins to [Load]
// or [Parse]: a plugin without a name or without a Load func, or two plugins
// with the same name. It is a programming error, not a problem in the file.
var ErrBadPlugin = errors.New("bad plugin registration")

// keyPlugins is the one top-level key of a deployment file.
const keyPlugins = "plugins"

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

// Translations of the YAML library's syntax messages, keyed by its text.
// Messages not listed here are passed through after the "yaml: line N:"
// prefix is removed.
func syntaxMessage(problem string) string {
	switch problem {
	case "found character that cannot start any token":
		return "this character cannot start a value; quote the value"
	case "mapping values are not allowed in this context":
		return "unexpected ':' (check the indentation, or quote a value that contains \": \")"
	case "did not find expected key":
		return "expected a key (check the indentation of this mapping and the lines below it)"
	case "could not find expected ':'":
		return "missing ':' after a key"
	case "did not find expected node content":
		return "expected a value"
	case "did not find expected ',' or ']'":
		return "unclosed '[': expected ',' or ']'"
	case "did not find expected ',' or '}'":
		return "unclosed '{': expected ',' or '}'"
	case "did not find expected '-' indicator":
		return "expected a '-' list item (check the indentation of this list and the lines below it)"
	case "found unexpected end of stream":
		return "unexpected end of file (unclosed quote?)"
	case "block sequence entries are not allowed in this context":
		return "a '-' list item is not allowed here (check the indentation)"
	case "mapping keys are not allowed in this context":
		return "a key is not allowed here (check the indentation)"
	case "found unknown escape character":
		return "unknown escape sequence in a double-quoted string"
	case "found unexpected document indicator":
		return "unexpected document marker ('---' or '...') inside a value"
	case "exceeded max depth of 10000":
		return "nested too deeply"
	case "did not find expected <document start>":
		return "expected the start of a document"
	case "found incompatible YAML document":
		return "unsupported %YAML version"
	}
	return problem
}

// MaxErrors is the most errors one load reports. Further errors are replaced
// by a last "too many errors" entry.
const MaxErrors = 20

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
	var b strings.Builder
	b.Grow(len(e.File) + len(e.Plugin) + len(e.Key) + len(e.Problem) + 16)
	b.WriteString(e.File)
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(e.Line))
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(e.Column))
	b.WriteString(": ")
	if e.Plugin != "" {
		b.WriteString(e.Plugin)
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Problem)
	return b.String()
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
	var b strings.Builder
	if e.Line > 0 {
		b.WriteString(strconv.Itoa(e.Line))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Column))
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Problem)
	return b.String()
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
	if node == nil {
		return "nothing"
	}
	switch node.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	case yaml.ScalarNode:
		switch tag := node.ShortTag(); tag {
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
		default:
			return "a value tagged " + tag
		}
	}
	return "an unknown value"
}
