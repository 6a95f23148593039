package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// checkEncoding finds the first byte sequence the YAML reader would reject:
// invalid UTF-8 (including UTF-16 files) and control characters. The YAML
// library reports these without a position, so they are found here first.
func checkEncoding(data []byte) (line, col int, problem string, ok bool) {
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return 1, 1, msgUTF16, false
	}
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return line, col, msgBadUTF8, false
		case !allowedRune(r):
			return line, col, fmt.Sprintf(msgControlChar, r), false
		}
		i += size
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return 0, 0, "", true
}

// allowedRune reports whether YAML allows r in a stream.
func allowedRune(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r':
	case r >= 0x20 && r <= 0x7E:
	case r == 0x85:
	case r >= 0xA0 && r <= 0xD7FF:
	case r >= 0xE000 && r <= 0xFFFD:
	case r >= 0x10000 && r <= 0x10FFFF:
	default:
		return false
	}
	return true
}

// parserProblems are the messages of the YAML library's parser stage. For
// these it reports a 0-based line (the start of the enclosing construct);
// scanner messages carry a 1-based line.
func isParserProblem(problem string) bool {
	switch problem {
	case "did not find expected node content",
		"did not find expected key",
		"did not find expected ',' or ']'",
		"did not find expected ',' or '}'",
		"did not find expected '-' indicator",
		"did not find expected <document start>",
		"did not find expected <stream-start>",
		"found duplicate %TAG directive",
		"found duplicate %YAML directive",
		"found incompatible YAML document",
		"found undefined tag handle":
		return true
	}
	return false
}

// syntaxError turns an error of the YAML library into a positioned problem.
// The library gives at most a line number; the column is that of the first
// non-blank character on the line, or of the tab for indentation tabs.
func syntaxError(data []byte, err error) (line, col int, problem string) {
	line, msg := splitLine(err)
	if isParserProblem(msg) {
		line++ // the parser's lines are 0-based; none given means the first line
	} else if line == 0 {
		line = 1 // the scanner leaves out the line when it is the first one
	}
	// An unknown anchor is an alias without a matching anchor; name the
	// real rule rather than the missing anchor.
	if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		name = strings.TrimSuffix(name, "' referenced")
		l, c := positionOf(data, "*"+name)
		return l, c, fmt.Sprintf(msgAlias, name)
	}
	if depth(msg) {
		if l, c, ok := tooDeep(data); ok && l >= line {
			return l, c, msgSyntax + syntaxMessage(msg)
		}
	} else if locatable(msg) {
		if l, c, ok := locate(data, msg, line); ok {
			return l, c, msgSyntax + syntaxMessage(msg)
		}
	}
	switch msg {
	case "found a tab character where an indentation space is expected",
		"found a tab character that violates indentation":
		if l, c, ok := indentTab(data, line, -1); ok {
			return l, c, msgTab
		}
		return line, firstNonBlank(data, line), msgTab
	case "found character that cannot start any token":
		if l, c, ok := indentTab(data, line, line); ok {
			return l, c, msgTab
		}
	}
	return line, firstNonBlank(data, line), msgSyntax + syntaxMessage(msg)
}

// locatable reports whether the YAML library places problem msg at the
// start of the enclosing construct (a block mapping or list whose
// indentation broke) rather than at the offending character, so that
// [locate] has to find it.
func locatable(msg string) bool {
	switch msg {
	case "did not find expected key",
		"did not find expected '-' indicator",
		"did not find expected node content":
		return true
	}
	return false
}

// maxFlowDepth is the YAML library's nesting limit for flow collections.
const maxFlowDepth = 10000

// depth reports whether msg is the library's nesting limit, which it places
// at the key whose value nests too deeply.
func depth(msg string) bool { return strings.HasPrefix(msg, "exceeded max depth of ") }

// tooDeep returns the position of the first "[" or "{" that opens a flow
// collection nested deeper than maxFlowDepth. It reads just enough YAML to
// tell indicators from text: quoted scalars, comments, and brackets inside
// plain scalars (which open nothing). Parsing prefixes, as [locate] does,
// would cost seconds here: the library's time grows with the square of the
// depth.
func tooDeep(data []byte) (line, col int, ok bool) {
	var (
		flow  int
		quote rune // the open quote while inside a quoted scalar
		prev  rune = '\n'
	)
	line, col = 1, 0
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		i += size
		col++
		if r == '\n' {
			line, col = line+1, 0
		}
		switch {
		case quote == '"' && r == '\\':
			_, size := utf8.DecodeRune(data[i:]) // the escaped character
			i += size
			col++
			r = 'x'
		case quote != 0 && r == quote:
			if quote == '\'' && i < len(data) && data[i] == '\'' {
				i++ // '' is a quote inside a single-quoted scalar
				col++
			} else {
				quote = 0
			}
		case quote != 0:
		case r == '#' && isSpace(prev):
			j := bytes.IndexByte(data[i:], '\n')
			if j < 0 {
				return 0, 0, false
			}
			i += j
			col += utf8.RuneCount(data[i-j : i])
		case !tokenStart(prev, flow):
		case r == '"' || r == '\'':
			quote = r
		case r == '[' || r == '{':
			if flow++; flow > maxFlowDepth {
				return line, col, true
			}
		}
		if flow > 0 && (r == ']' || r == '}') && quote == 0 {
			flow--
		}
		prev = r
	}
	return 0, 0, false
}

// isSpace reports whether r separates tokens.
func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// tokenStart reports whether a character after prev begins a token, so that
// a quote or a bracket there is an indicator rather than text.
func tokenStart(prev rune, flow int) bool {
	switch prev {
	case ' ', '\t', '\n', '\r', '[', '{', ',':
		return true
	case ':':
		return flow > 0 // {"a":[1]}; in block context "a:[" is text
	}
	return false
}

// locate finds where the YAML library meets problem msg: the shortest
// prefix of data that fails with msg ends at the offending character. It
// searches whole lines from line from on, then the characters of the line
// found, by bisection (each step parses a prefix), and reports the
// 1-based line and column. ok is false when no prefix fails with msg.
//
// This runs only for a file that failed to load, at most a few dozen
// parses of at most [MaxFileSize] bytes.
func locate(data []byte, msg string, from int) (line, col int, ok bool) {
	var starts []int // byte offset of each line
	for off := 0; off < len(data); {
		starts = append(starts, off)
		j := bytes.IndexByte(data[off:], '\n')
		if j < 0 {
			break
		}
		off += j + 1
	}
	n := len(starts)
	end := func(k int) int { // the end of line k (1-based), line break included
		if k < n {
			return starts[k]
		}
		return len(data)
	}
	from = min(max(from, 1), n)
	if n == 0 || !failsWith(data[:end(n)], msg) {
		return 0, 0, false
	}
	lo, hi := from, n // the first failing line is in [lo, hi]
	for lo < hi {
		mid := lo + (hi-lo)/2
		if failsWith(data[:end(mid)], msg) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	line = lo
	text := data[starts[line-1]:end(line)]
	var cuts []int // byte offset in text after each character
	for i := 0; i < len(text); {
		_, size := utf8.DecodeRune(text[i:])
		i += size
		cuts = append(cuts, i)
	}
	before := data[:starts[line-1]]
	lo, hi = 1, len(cuts)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if failsWith(append(before[:len(before):len(before)], text[:cuts[mid-1]]...), msg) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if !depth(msg) && len(bytes.TrimSpace(data[len(before)+cuts[lo-1]:])) == 0 {
		// Only the end of the file follows: the prefix failed for its end,
		// which the library already places well.
		return 0, 0, false
	}
	return line, lo, true
}

// failsWith reports whether decoding every document of data fails with
// problem msg (the library's text, without its "yaml: line N: " prefix).
func failsWith(data []byte, msg string) bool {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if err == nil {
			continue
		}
		if errors.Is(err, io.EOF) {
			return false
		}
		_, got := splitLine(err)
		return got == msg
	}
}

// splitLine splits a YAML library error into the line it names (0 when
// none) and its message.
func splitLine(err error) (line int, msg string) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ": "); ok {
			if v, perr := strconv.Atoi(n); perr == nil {
				return v, after
			}
		}
	}
	return 0, msg
}

// lineOffset returns the byte offset of line n (1-based) of data, and
// whether the file has that line.
func lineOffset(data []byte, n int) (int, bool) {
	off := 0
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data[off:], '\n')
		if j < 0 {
			return 0, false
		}
		off += j + 1
	}
	return off, true
}

// lineAt returns line n (1-based) of data without its line break, and
// whether the file has that line.
func lineAt(data []byte, n int) ([]byte, bool) {
	off, ok := lineOffset(data, n)
	if !ok {
		return nil, false
	}
	data = data[off:]
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return bytes.TrimSuffix(data, []byte{'\r'}), true
}

// firstNonBlank returns the 1-based column of the first character on line n
// that is not a space or tab, or 1.
func firstNonBlank(data []byte, n int) int {
	l, ok := lineAt(data, n)
	if !ok {
		return 1
	}
	trimmed := bytes.TrimLeft(l, " \t")
	if len(trimmed) == 0 {
		return 1
	}
	return utf8.RuneCount(l[:len(l)-len(trimmed)]) + 1
}

// indentTab finds the first tab in the leading white space of lines from..to
// (to < 0: to the end of the file).
func indentTab(data []byte, from, to int) (line, col int, ok bool) {
	off, exists := lineOffset(data, from)
	if !exists {
		return 0, 0, false
	}
	data = data[off:]
	for n := from; len(data) > 0 && (to < 0 || n <= to); n++ {
		l := data
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			l, data = data[:j], data[j+1:]
		} else {
			data = nil
		}
		for i, c := range l {
			if c == '\t' {
				return n, i + 1, true
			}
			if c != ' ' {
				break
			}
		}
	}
	return 0, 0, false
}

// positionOf returns the 1-based position of the first occurrence of s in
// data, or 1:1.
func positionOf(data []byte, s string) (line, col int) {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 1, 1
	}
	before := data[:i]
	line = bytes.Count(before, []byte{'\n'}) + 1
	if j := bytes.LastIndexByte(before, '\n'); j >= 0 {
		before = before[j+1:]
	}
	return line, utf8.RuneCount(before) + 1
}

// typeErrors turns the entries of a yaml.TypeError ("line N: cannot
// unmarshal !!str `abc` into int") into positioned problems.
func typeErrors(data []byte, te *yaml.TypeError) []FieldError {
	out := make([]FieldError, 0, len(te.Errors))
	for _, msg := range te.Errors {
		var fe FieldError
		if rest, ok := strings.CutPrefix(msg, "line "); ok {
			if n, after, ok := strings.Cut(rest, ": "); ok {
				if v, err := strconv.Atoi(n); err == nil {
					fe.Line, fe.Column, msg = v, firstNonBlank(data, v), after
				}
			}
		}
		fe.Problem = translateUnmarshal(msg)
		out = append(out, fe)
	}
	return out
}

// translateUnmarshal rewrites "cannot unmarshal !!TAG `VALUE` into TYPE" in
// words; other messages are returned unchanged.
func translateUnmarshal(msg string) string {
	rest, ok := strings.CutPrefix(msg, "cannot unmarshal ")
	if !ok {
		return msg
	}
	src, goType, ok := strings.Cut(rest, " into ")
	if !ok {
		return msg
	}
	tag, value, _ := strings.Cut(src, " ")
	got := Describe(&yaml.Node{Kind: yaml.ScalarNode, Tag: tag})
	switch tag {
	case "!!map":
		got = "a mapping"
	case "!!seq":
		got = "a list"
	}
	if value = strings.Trim(value, "`"); value != "" {
		got += " (" + value + ")"
	}
	return fmt.Sprintf(msgTypeMismatch, goTypeWords(goType), got)
}

// goTypeWords names a Go type the way an operator thinks of it.
func goTypeWords(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "a boolean"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "a number"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a mapping"
	}
	return "a value of type " + t
}
