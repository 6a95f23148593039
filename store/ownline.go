package store

import (
	"bytes"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dshgo/planmode/host"
)

// ownLimit bounds what the own-form reader takes on: deeper nesting, or
// an object with more names, goes to the jsontext path, which keeps the
// duplicate check linear per object and the reader's stack small.
const ownLimit = 64

// ownReader reads a line in the form the store itself writes, in one pass
// over its bytes: compact, the keys seq, type, time, source (optional) and
// data (optional) in that order, a plain decimal seq, no escape in a name
// or the type, no escaped surrogate. It checks what the jsontext path
// checks (syntax, UTF-8 in every string, unique names in every object,
// depth) and gives the event that path gives. Anything else, good or bad,
// makes it answer false and the jsontext path decides: it has no errors
// of its own. FuzzOwnReader checks it against that path and encoding/json.
type ownReader struct {
	b     []byte
	i     int      // next byte of b
	names [][]byte // names of the objects open, for the duplicate check
}

// line reads line as the decoder's fast path; ok is false when the line
// is not in the store's form or not valid.
func (d *lineDecoder) own(line []byte) (e host.Event, ok bool) {
	r := &d.reader
	r.b, r.i, r.names = line, 0, r.names[:0]
	if !r.skip(`{"seq":`) {
		return e, false
	}
	start := r.i
	for r.i < len(line) && '0' <= line[r.i] && line[r.i] <= '9' {
		r.i++
	}
	if r.i == start || line[start] == '0' {
		return e, false // "01" is not JSON, seq 0 an error: both the other path's
	}
	if e.Seq, ok = parseSeq(line[start:r.i]); !ok || !r.skip(`,"type":`) {
		return e, false
	}
	start = r.i
	if !r.str() {
		return e, false
	}
	typ := line[start+1 : r.i-1]
	if len(typ) == 0 || bytes.IndexByte(typ, '\\') >= 0 || !r.skip(`,"time":`) {
		return e, false
	}
	e.Type = d.sharedType(typ)
	start = r.i
	if !r.str() || e.Time.UnmarshalJSON(line[start:r.i]) != nil {
		return e, false
	}
	if r.skip(`,"source":`) {
		start = r.i
		if !r.value(1) {
			return e, false
		}
		if e.Source = d.source(line[start:r.i]); e.Source == nil {
			return e, false
		}
	}
	if r.skip(`,"data":`) {
		start = r.i
		if !r.value(1) {
			return e, false
		}
		e.Data = line[start:r.i:r.i] // capped: an append to it must not reach the next line
	}
	if !r.skipByte('}') || r.i != len(line) {
		return e, false
	}
	return e, true
}

// skip moves past s if the input continues with it.
func (r *ownReader) skip(s string) bool {
	if !bytes.HasPrefix(r.b[r.i:], []byte(s)) {
		return false
	}
	r.i += len(s)
	return true
}

// skipByte moves past c if it is the next byte.
func (r *ownReader) skipByte(c byte) bool {
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// next returns the next byte, or 0 at the end.
func (r *ownReader) next() byte {
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

// value reads one compact JSON value inside depth open arrays and objects.
func (r *ownReader) value(depth int) bool {
	switch r.next() {
	case '{':
		return r.object(depth + 1)
	case '[':
		return r.array(depth + 1)
	case '"':
		return r.str()
	case 't':
		return r.skip("true")
	case 'f':
		return r.skip("false")
	case 'n':
		return r.skip("null")
	}
	return r.number()
}

func (r *ownReader) object(depth int) bool {
	if depth > ownLimit {
		return false
	}
	r.i++ // '{'
	if r.skipByte('}') {
		return true
	}
	first := len(r.names)
	for {
		start := r.i
		if !r.str() {
			return false
		}
		name := r.b[start:r.i]
		// An escaped name may equal another one spelled plainly; the
		// jsontext path compares what they decode to.
		if bytes.IndexByte(name, '\\') >= 0 || len(r.names)-first >= ownLimit ||
			slices.ContainsFunc(r.names[first:], func(n []byte) bool { return bytes.Equal(n, name) }) {
			return false
		}
		r.names = append(r.names, name)
		if !r.skipByte(':') || !r.value(depth) {
			return false
		}
		if r.skipByte(',') {
			continue
		}
		r.names = r.names[:first]
		return r.skipByte('}')
	}
}

func (r *ownReader) array(depth int) bool {
	if depth > ownLimit {
		return false
	}
	r.i++ // '['
	if r.skipByte(']') {
		return true
	}
	for {
		if !r.value(depth) {
			return false
		}
		if !r.skipByte(',') {
			return r.skipByte(']')
		}
	}
}

// str reads a string: no control characters, valid UTF-8, valid escapes
// other than of a surrogate.
func (r *ownReader) str() bool {
	if !r.skipByte('"') {
		return false
	}
	for r.i < len(r.b) {
		rest := r.b[r.i:]
		n := 0
		for n < len(rest) && plain[rest[n]] {
			n++
		}
		r.i += n
		if n == len(rest) {
			break
		}
		switch c := rest[n]; {
		case c == '"':
			r.i++
			return true
		case c == '\\':
			if !r.escape() {
				return false
			}
		case c < ' ':
			return false
		default:
			c, n := utf8.DecodeRune(rest[n:])
			if c == utf8.RuneError && n == 1 {
				return false
			}
			r.i += n
		}
	}
	return false
}

// plain holds the bytes a string may hold as they are: ASCII other than
// control characters, '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (r *ownReader) escape() bool {
	esc := r.b[r.i+1:]
	if len(esc) == 0 {
		return false
	}
	switch esc[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		r.i += 2
		return true
	case 'u':
		if len(esc) < 5 {
			return false
		}
		var c rune
		for _, h := range esc[1:5] {
			switch {
			case '0' <= h && h <= '9':
				c = c<<4 | rune(h-'0')
			case 'a' <= h && h <= 'f':
				c = c<<4 | rune(h-'a'+10)
			case 'A' <= h && h <= 'F':
				c = c<<4 | rune(h-'A'+10)
			default:
				return false
			}
		}
		r.i += 6
		return !utf16.IsSurrogate(c) // a pair, or the half earlier versions wrote
	}
	return false
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (r *ownReader) number() bool {
	r.skipByte('-')
	if !r.skipByte('0') && r.digits() == 0 {
		return false
	}
	if r.skipByte('.') && r.digits() == 0 {
		return false
	}
	if r.skipByte('e') || r.skipByte('E') {
		if !r.skipByte('+') {
			r.skipByte('-')
		}
		return r.digits() > 0
	}
	return true
}

// digits skips decimal digits and returns how many.
func (r *ownReader) digits() int {
	start := r.i
	for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
		r.i++
	}
	return r.i - start
}
