package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"unicode/utf8"

	"github.com/dshgo/planmode/store/eventcheck"
)

// MaxDataDepth is the deepest nesting of arrays and objects that an
// event's data may have; see [eventcheck.MaxDataDepth].
const MaxDataDepth = eventcheck.MaxDataDepth

// maxLineDepth is the deepest nesting a line may have when a session file
// is read; it is encoding/json's limit.
const maxLineDepth = 10000

// errJSON marks a JSON text that checkJSON refuses.
var errJSON = errors.New("invalid JSON")

// jsonError is an error at byte Off of a JSON text.
type jsonError struct {
	Off int
	Msg string
	// Syntax is set for malformed text, as opposed to well-formed JSON
	// that is refused (invalid UTF-8, a duplicate key, too deep).
	Syntax bool
	// Deep is set when the text nests too deep; it may also be malformed
	// further on.
	Deep bool
}

func (e *jsonError) Error() string { return fmt.Sprintf("%s at byte %d", e.Msg, e.Off) }

func (e *jsonError) Is(target error) bool { return target == errJSON }

// checkJSON checks that b holds exactly one JSON value, with JSON
// whitespace around it allowed, in which every string is valid UTF-8, no
// object has two keys that decode to the same string, and arrays and
// objects nest at most maxDepth deep. Errors are *jsonError.
func checkJSON(b []byte, maxDepth int) error {
	c := checkers.Get().(*jsonChecker)
	err := c.check(b, maxDepth)
	if cap(c.keys) > 1024 {
		c.keys = nil // do not keep one huge object's buffer
	}
	clear(c.keys[:cap(c.keys)]) // keep no caller memory alive
	c.b = nil
	checkers.Put(c)
	return err
}

// checkers keeps checkers with their key buffers between calls.
var checkers = sync.Pool{New: func() any { return new(jsonChecker) }}

// check is checkJSON reusing c's memory from earlier calls.
func (c *jsonChecker) check(b []byte, maxDepth int) error {
	c.reset(b, 0, maxDepth)
	c.skipSpace()
	if err := c.value(0); err != nil {
		return err
	}
	c.skipSpace()
	if c.i != len(b) {
		return c.syntax("data after the JSON value")
	}
	if c.refused != nil {
		return c.refused
	}
	return nil
}

// manyKeys is the number of keys of one object above which duplicates are
// looked up in a map rather than by comparing with each earlier key.
const manyKeys = 16

type jsonChecker struct {
	b        []byte
	i        int
	maxDepth int
	keys     [][]byte // keys of the open objects, innermost last
	spaces   int      // whitespace bytes outside strings
	escapes  int      // escape sequences in strings
	// lastTop is where the value of the last member of a top-level
	// object starts.
	lastTop int
	// refused is the first refusal of well-formed text; it is returned
	// only when the whole text turns out well-formed, so that malformed
	// text is always reported as such.
	refused *jsonError
}

// reset readies c to check b from offset i, keeping its key buffer. It
// sets the fields one by one: a composite literal is built on the stack
// and then copied, which costs a cold open measurably.
func (c *jsonChecker) reset(b []byte, i, maxDepth int) {
	c.b, c.i, c.maxDepth = b, i, maxDepth
	c.keys = c.keys[:0]
	c.spaces, c.escapes, c.lastTop = 0, 0, 0
	c.refused = nil
}

func (c *jsonChecker) refuse(off int, msg string) {
	if c.refused == nil {
		c.refused = &jsonError{Off: off, Msg: msg}
	}
}

func (c *jsonChecker) syntax(msg string) error {
	return &jsonError{Off: c.i, Msg: msg, Syntax: true}
}

func (c *jsonChecker) unexpected() error {
	if c.i >= len(c.b) {
		return c.syntax("unexpected end of JSON")
	}
	return c.syntax(fmt.Sprintf("invalid character %q", c.b[c.i]))
}

func (c *jsonChecker) skipSpace() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\r', '\n':
			c.i++
			c.spaces++
		default:
			return
		}
	}
}

// value checks the value at c.i, at nesting depth (0 outside any array
// or object), leaving c.i after it.
func (c *jsonChecker) value(depth int) error {
	if c.i >= len(c.b) {
		return c.unexpected()
	}
	switch ch := c.b[c.i]; {
	case ch == '{':
		return c.object(depth + 1)
	case ch == '[':
		return c.array(depth + 1)
	case ch == '"':
		_, err := c.str()
		return err
	case ch == '-' || ch >= '0' && ch <= '9':
		return c.number()
	case ch == 't':
		return c.literal("true")
	case ch == 'f':
		return c.literal("false")
	case ch == 'n':
		return c.literal("null")
	}
	return c.unexpected()
}

func (c *jsonChecker) literal(word string) error {
	for k := 0; k < len(word); k++ {
		if c.i >= len(c.b) || c.b[c.i] != word[k] {
			return c.unexpected()
		}
		c.i++
	}
	return nil
}

func (c *jsonChecker) deep(depth int) error {
	if depth > c.maxDepth {
		return &jsonError{Off: c.i, Msg: fmt.Sprintf("arrays and objects nested deeper than %d", c.maxDepth), Deep: true}
	}
	return nil
}

func (c *jsonChecker) array(depth int) error {
	if err := c.deep(depth); err != nil {
		return err
	}
	c.i++ // '['
	c.skipSpace()
	if c.i < len(c.b) && c.b[c.i] == ']' {
		c.i++
		return nil
	}
	for {
		c.skipSpace()
		if err := c.value(depth); err != nil {
			return err
		}
		c.skipSpace()
		if c.i >= len(c.b) {
			return c.unexpected()
		}
		switch c.b[c.i] {
		case ',':
			c.i++
		case ']':
			c.i++
			return nil
		default:
			return c.unexpected()
		}
	}
}

func (c *jsonChecker) object(depth int) error {
	if err := c.deep(depth); err != nil {
		return err
	}
	c.i++ // '{'
	base := len(c.keys)
	defer func() { c.keys = c.keys[:base] }()
	var many map[string]struct{} // the keys, once there are many
	c.skipSpace()
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
		return nil
	}
	for {
		c.skipSpace()
		if c.i >= len(c.b) || c.b[c.i] != '"' {
			return c.unexpected()
		}
		at := c.i
		key, err := c.str()
		if err != nil {
			return err
		}
		dup := false
		if many != nil {
			_, dup = many[string(key)]
			many[string(key)] = struct{}{}
		} else {
			for _, k := range c.keys[base:] {
				if bytes.Equal(k, key) {
					dup = true
					break
				}
			}
			c.keys = append(c.keys, key)
			if len(c.keys)-base > manyKeys {
				many = make(map[string]struct{}, 2*manyKeys)
				for _, k := range c.keys[base:] {
					many[string(k)] = struct{}{}
				}
			}
		}
		if dup {
			c.refuse(at, fmt.Sprintf("duplicate key %s", c.b[at:c.i]))
		}
		c.skipSpace()
		if c.i >= len(c.b) || c.b[c.i] != ':' {
			return c.unexpected()
		}
		c.i++
		c.skipSpace()
		if depth == 1 {
			c.lastTop = c.i
		}
		if err := c.value(depth); err != nil {
			return err
		}
		c.skipSpace()
		if c.i >= len(c.b) {
			return c.unexpected()
		}
		switch c.b[c.i] {
		case ',':
			c.i++
		case '}':
			c.i++
			return nil
		default:
			return c.unexpected()
		}
	}
}

// str checks the string at c.i and returns its contents as a key for
// comparison: the raw bytes between the quotes, or the decoded text when
// the string holds escapes.
func (c *jsonChecker) str() ([]byte, error) {
	start := c.i
	c.i++ // '"'
	escaped := false
	for c.i < len(c.b) {
		c.i = skipPlain(c.b, c.i)
		if c.i >= len(c.b) {
			break
		}
		ch := c.b[c.i]
		switch {
		case ch == '"':
			c.i++
			raw := c.b[start+1 : c.i-1]
			if !escaped {
				return raw, nil
			}
			var s string
			if err := json.Unmarshal(c.b[start:c.i], &s); err != nil {
				return nil, &jsonError{Off: start, Msg: "bad string", Syntax: true}
			}
			return []byte(s), nil
		case ch == '\\':
			escaped = true
			c.escapes++
			if err := c.escape(); err != nil {
				return nil, err
			}
		case ch < 0x20:
			return nil, c.syntax(fmt.Sprintf("invalid character %q in string", ch))
		case ch < utf8.RuneSelf:
			c.i++
		default:
			r, n := utf8.DecodeRune(c.b[c.i:])
			if r == utf8.RuneError && n == 1 {
				c.refuse(c.i, "invalid UTF-8 in string")
			}
			c.i += n
		}
	}
	return nil, c.unexpected()
}

// skipPlain returns the offset of the first byte of b at or after i that
// is not plain (see plainByte), eight bytes at a time while it can.
func skipPlain(b []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		q, bs := x^(lo*'"'), x^(lo*'\\')
		// Flags a byte below 0x20, a zero byte of q or bs (a '"' or a
		// '\\'), or a byte with its high bit set; a false alarm can only
		// follow a true one, so the lowest flag is the first such byte.
		if m := ((x-lo*0x20)&^x | (q-lo)&^q | (bs-lo)&^bs | x) & hi; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for i < len(b) && plainByte[b[i]] {
		i++
	}
	return i
}

// plainByte marks the bytes a string holds as they are: ASCII other than
// control characters, '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// escape checks the escape sequence at c.i (at its backslash).
func (c *jsonChecker) escape() error {
	c.i++
	if c.i >= len(c.b) {
		return c.unexpected()
	}
	switch c.b[c.i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		c.i++
		return nil
	case 'u':
		c.i++
		for k := 0; k < 4; k++ {
			if c.i >= len(c.b) || !isHex(c.b[c.i]) {
				return c.unexpected()
			}
			c.i++
		}
		return nil
	}
	return c.syntax(fmt.Sprintf("invalid escape %q in string", c.b[c.i]))
}

func isHex(ch byte) bool {
	return ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F'
}

func isDigit(ch byte) bool { return ch >= '0' && ch <= '9' }

func (c *jsonChecker) number() error {
	if c.b[c.i] == '-' {
		c.i++
	}
	switch {
	case c.i < len(c.b) && c.b[c.i] == '0':
		c.i++
	case c.i < len(c.b) && isDigit(c.b[c.i]):
		for c.i < len(c.b) && isDigit(c.b[c.i]) {
			c.i++
		}
	default:
		return c.unexpected()
	}
	if c.i < len(c.b) && c.b[c.i] == '.' {
		c.i++
		if c.i >= len(c.b) || !isDigit(c.b[c.i]) {
			return c.unexpected()
		}
		for c.i < len(c.b) && isDigit(c.b[c.i]) {
			c.i++
		}
	}
	if c.i < len(c.b) && (c.b[c.i] == 'e' || c.b[c.i] == 'E') {
		c.i++
		if c.i < len(c.b) && (c.b[c.i] == '+' || c.b[c.i] == '-') {
			c.i++
		}
		if c.i >= len(c.b) || !isDigit(c.b[c.i]) {
			return c.unexpected()
		}
		for c.i < len(c.b) && isDigit(c.b[c.i]) {
			c.i++
		}
	}
	return nil
}
