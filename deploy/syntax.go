package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// checkEncoding returns the byte offset of the first thing the YAML reader
// would reject, invalid UTF-8 (a UTF-16 file among it) or a control
// character, and the problem; problem is "" when there is none. The YAML
// library reports these without a position.
func checkEncoding(data []byte) (off int, problem string) {
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return 0, msgUTF16
	}
	for off < len(data) {
		r, size := utf8.DecodeRune(data[off:])
		switch {
		case r == utf8.RuneError && size == 1:
			return off, msgBadUTF8
		case unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' && r != 0x85, r == 0xFFFE, r == 0xFFFF:
			return off, fmt.Sprintf(msgControlChar, r)
		}
		off += size
	}
	return 0, ""
}

// syntaxProblem says how to report the YAML library's syntax message msg:
// the problem in the operator's words; whether msg is the parser's, which
// gives the 0-based line of the enclosing construct and is about a token
// that is missing; and whether [locate] has to find the offending character
// because the library's line is not the character's (a broken block
// indentation, a tab) or it gives no column where one matters (the nesting
// limit).
func syntaxProblem(msg string) (problem string, parser, find bool) {
	switch msg {
	case "did not find expected key", "did not find expected '-' indicator", "did not find expected node content":
		parser, find = true, true
	case "did not find expected ',' or ']'", "did not find expected ',' or '}'",
		"did not find expected <document start>", "did not find expected <stream-start>",
		"found incompatible YAML document", "found duplicate %TAG directive",
		"found duplicate %YAML directive", "found undefined tag handle":
		parser = true
	case "found a tab character where an indentation space is expected", "found a tab character that violates indentation":
		return msgTab, false, true
	case "exceeded max depth of 10000":
		find = true
	}
	return msgSyntax + syntaxWords(msg), parser, find
}

// syntaxError turns an error of the YAML library into a positioned problem.
// The library gives at most a line; the column is that of the offending
// character where [syntaxProblem] says to find it, of a tab in the line's
// indentation, or else of the line's first non-blank character.
func syntaxError(data []byte, err error) (line, col int, problem string) {
	line, msg := splitLine(err.Error())
	if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		// An alias without its anchor: name the rule, not the missing anchor.
		name = strings.TrimSuffix(name, "' referenced")
		line, col = position(data, max(bytes.Index(data, []byte("*"+name)), 0))
		return line, col, fmt.Sprintf(msgAlias, name)
	}
	problem, parser, find := syntaxProblem(msg)
	if parser {
		line++ // 0-based; none given means the first line
	}
	line = max(line, 1)
	if find {
		if off, ok := locate(data, msg, line, parser); ok {
			line, col = position(data, off)
			return line, col, problem
		}
	}
	text := lineText(data, line)
	indent := text[:len(text)-len(bytes.TrimLeft(text, " \t"))]
	if tab := bytes.IndexByte(indent, '\t'); tab >= 0 && (problem == msgTab || msg == "found character that cannot start any token") {
		return line, tab + 1, msgTab
	}
	return line, firstNonBlank(data, line), problem
}

// locate returns the byte offset of the character at which the YAML library
// fails with msg: the last one of the shortest prefix of data that fails
// with it, searched from line on (the last line when the file is shorter),
// first by whole lines, then by characters. ok is false when no prefix
// fails with msg, or when msg is the parser's and only blanks follow the
// character: then it is the end of the file that is missing something,
// which the library's own line already tells.
//
// This runs only for a file that failed to load: two bisections, a few
// dozen parses of at most [MaxFileSize] bytes.
func locate(data []byte, msg string, line int, parser bool) (off int, ok bool) {
	fails := func(end int) bool { return failsWith(data[:end], msg) }
	if !fails(len(data)) {
		return 0, false
	}
	ends := []int{0} // ends[n] is the end of line n, its line break included
	for text := range bytes.Lines(data) {
		ends = append(ends, ends[len(ends)-1]+len(text))
	}
	from := min(line, len(ends)-1)
	line = from + sort.Search(len(ends)-1-from, func(i int) bool { return fails(ends[from+i]) })
	start := ends[line-1]
	runeEnd := func(i int) int { // the end of the character holding byte start+i
		i += start + 1
		for i < len(data) && !utf8.RuneStart(data[i]) {
			i++
		}
		return i
	}
	end := runeEnd(sort.Search(ends[line]-start-1, func(i int) bool { return fails(runeEnd(i)) }))
	if parser && len(bytes.TrimSpace(data[end:])) == 0 {
		return 0, false
	}
	_, size := utf8.DecodeLastRune(data[:end])
	return end - size, true
}

// failsWith reports whether decoding every document of data fails with
// problem msg (the library's text, without its "yaml: line N: " prefix).
func failsWith(data []byte, msg string) bool {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			_, got := splitLine(err.Error())
			return !errors.Is(err, io.EOF) && got == msg
		}
	}
}

// lineMessage matches a message of the YAML library: "yaml: line N: TEXT",
// where the prefix, the line or both may be missing.
var lineMessage = regexp.MustCompile(`(?s)^(?:yaml: )?(?:line (\d+): )?(.*)$`)

// splitLine splits a message of the YAML library into the line it names
// (0 when none) and its text.
func splitLine(s string) (line int, msg string) {
	m := lineMessage.FindStringSubmatch(s)
	line, _ = strconv.Atoi(m[1])
	return line, m[2]
}

// position returns the 1-based line and column (in characters) of the byte
// at offset off in data.
func position(data []byte, off int) (line, col int) {
	before := data[:off]
	return bytes.Count(before, []byte("\n")) + 1, utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
}

// lineText returns line n (1-based) of data without its line break, nil
// past the end.
func lineText(data []byte, n int) []byte {
	for text := range bytes.Lines(data) {
		if n--; n == 0 {
			return bytes.TrimRight(text, "\r\n")
		}
	}
	return nil
}

// firstNonBlank returns the 1-based column of the first character of line n
// that is not a space or a tab, or 1 for a blank line.
func firstNonBlank(data []byte, n int) int {
	text := lineText(data, n)
	rest := bytes.TrimLeft(text, " \t")
	if len(rest) == 0 {
		return 1
	}
	return len(text) - len(rest) + 1
}

// unmarshalMessage matches the YAML library's "cannot unmarshal !!TAG
// `VALUE` into TYPE", where the value may be missing.
var unmarshalMessage = regexp.MustCompile("(?s)^cannot unmarshal (\\S+)(?: `(.*)`)? into (.+)$")

// typeErrors turns the entries of a yaml.TypeError ("line N: cannot
// unmarshal !!str `abc` into int") into positioned problems, in words.
func typeErrors(data []byte, te *yaml.TypeError) []FieldError {
	out := make([]FieldError, len(te.Errors))
	for i, msg := range te.Errors {
		line, msg := splitLine(msg)
		if line > 0 {
			out[i].Line, out[i].Column = line, firstNonBlank(data, line)
		}
		out[i].Problem = msg
		if m := unmarshalMessage.FindStringSubmatch(msg); m != nil {
			got := describeTag(m[1])
			if m[2] != "" {
				got += " (" + m[2] + ")"
			}
			out[i].Problem = fmt.Sprintf(msgTypeMismatch, goTypeWords(m[3]), got)
		}
	}
	return out
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
