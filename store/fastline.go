package store

import (
	"bytes"
	"fmt"
	"time"

	"github.com/dshgo/planmode/host"
)

// fastDecoder decodes the lines a store writes without encoding/json: it
// checks the line with checkJSON (syntax, UTF-8, duplicate keys, depth),
// then reads the envelope's fields directly, keeping the data as a slice
// of the line and sharing type strings and sources between events. Any
// line that is not in the exact form the store writes (an unknown or
// differently cased key, an escape in the type or time, a number seq
// written another way, a null data or source, a time in another layout)
// goes to the encoding/json decoder, so both accept and reject the same
// lines and give the same events (FuzzFastDecoder checks this).
//
// The events it returns alias line: callers must not reuse its memory.
// It is not safe for concurrent use.
type fastDecoder struct {
	check   jsonChecker
	slow    lineDecoder
	types   map[string]string
	sources map[string]*host.Source
	fast    int // lines decoded by the fast path, for tests
}

// maxInterned bounds the distinct types and sources a decoder shares.
const maxInterned = 256

func (d *fastDecoder) decode(line []byte) (host.Event, error) {
	if err := d.check.check(line, maxLineDepth); err != nil {
		if je, ok := err.(*jsonError); ok && (je.Syntax || je.Deep) {
			// Malformed: let encoding/json say how, as it always did
			// (and tell a torn line from a complete one).
			return d.slow.decode(line)
		}
		return host.Event{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if e, ok := d.envelope(line); ok {
		d.fast++
		return e, nil
	}
	return d.slow.decode(line)
}

// envelope reads a line that checkJSON accepted when it is in the store's
// own form; ok is false when the slow decoder must decide.
func (d *fastDecoder) envelope(line []byte) (e host.Event, ok bool) {
	r := envReader{b: line, plain: d.check.escapes == 0}
	r.space()
	if !r.byte('{') {
		return e, false
	}
	var haveSeq, haveType, haveTime bool
	r.space()
	if r.byte('}') {
		return e, false
	}
	for {
		r.space()
		key, ok := r.plainString()
		if !ok {
			return e, false
		}
		r.space()
		r.byte(':')
		r.space()
		switch string(key) {
		case "seq":
			if e.Seq, ok = r.uint(); !ok {
				return e, false
			}
			haveSeq = true
		case "type":
			s, ok := r.plainString()
			if !ok || len(s) == 0 {
				return e, false
			}
			e.Type = d.intern(s)
			haveType = true
		case "time":
			s, ok := r.plainString()
			if !ok {
				return e, false
			}
			if e.Time, ok = parseTime(s); !ok {
				return e, false
			}
			haveTime = true
		case "source":
			start := r.i
			if !r.skipSource() {
				return e, false
			}
			if e.Source = d.source(line[start:r.i]); e.Source == nil {
				return e, false
			}
		case "data":
			start := r.i
			if start == d.check.lastTop && d.check.spaces == 0 {
				// The last member of a line with no whitespace (the
				// store's own form): the value runs to the closing brace.
				r.i = len(line) - 1
			} else {
				r.skipValue()
			}
			e.Data = line[start:r.i:r.i] // capped: an append to it must not reach the next line
			if d.check.spaces != 0 && !isCompact(e.Data) || bytes.Equal(e.Data, []byte("null")) {
				return e, false
			}
		default:
			return e, false
		}
		r.space()
		if r.byte('}') {
			break
		}
		r.byte(',')
	}
	if !haveSeq || !haveType || !haveTime || e.Seq == 0 || e.Time.IsZero() {
		return e, false
	}
	return e, true
}

func (d *fastDecoder) intern(b []byte) string {
	if s, ok := d.types[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.types == nil {
		d.types = map[string]string{}
	}
	if len(d.types) < maxInterned {
		d.types[s] = s
	}
	return s
}

// source decodes a source object in the store's form ({"kind":...} with
// optional "plugin" and "form", plain strings), sharing equal ones; nil
// means the slow decoder must decide.
func (d *fastDecoder) source(raw []byte) *host.Source {
	if src, ok := d.sources[string(raw)]; ok {
		return src
	}
	r := envReader{b: raw}
	var src host.Source
	r.byte('{')
	r.space()
	if r.byte('}') {
		return nil
	}
	for {
		r.space()
		key, ok := r.plainString()
		if !ok {
			return nil
		}
		r.space()
		r.byte(':')
		r.space()
		val, ok := r.plainString()
		if !ok {
			return nil
		}
		switch string(key) {
		case "kind":
			src.Kind = host.SourceKind(val)
		case "plugin":
			src.Plugin = string(val)
		case "form":
			src.Form = string(val)
		default:
			return nil
		}
		r.space()
		if r.byte('}') {
			break
		}
		r.byte(',')
	}
	p := &src
	if d.sources == nil {
		d.sources = map[string]*host.Source{}
	}
	if len(d.sources) < maxInterned {
		d.sources[string(raw)] = p
	}
	return p
}

// envReader walks a line that checkJSON accepted, so it needs no syntax
// checks of its own beyond what tells the fast path apart.
type envReader struct {
	b     []byte
	i     int
	plain bool // the line has no escape sequence
}

func (r *envReader) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\r', '\n':
			r.i++
		default:
			return
		}
	}
}

// byte consumes c if it is next.
func (r *envReader) byte(c byte) bool {
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// plainString reads a string without escapes and returns its contents;
// ok is false for anything else.
func (r *envReader) plainString() ([]byte, bool) {
	if !r.byte('"') {
		return nil, false
	}
	start := r.i
	end := bytes.IndexByte(r.b[start:], '"')
	if end < 0 {
		return nil, false
	}
	s := r.b[start : start+end]
	if !r.plain && bytes.IndexByte(s, '\\') >= 0 {
		return nil, false
	}
	r.i = start + end + 1
	return s, true
}

// uint reads a plain decimal number that fits a uint64.
func (r *envReader) uint() (uint64, bool) {
	start := r.i
	var n uint64
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		if r.i-start >= 19 {
			return 0, false // might overflow: let encoding/json decide
		}
		n = n*10 + uint64(r.b[r.i]-'0')
		r.i++
	}
	if r.i == start || r.i < len(r.b) && (r.b[r.i] == '.' || r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		return 0, false
	}
	return n, true
}

// skipSource skips an object value; anything else (null) is not the fast
// path's.
func (r *envReader) skipSource() bool {
	if r.i >= len(r.b) || r.b[r.i] != '{' {
		return false
	}
	r.skipValue()
	return true
}

// skipValue skips one well-formed value.
func (r *envReader) skipValue() {
	depth := 0
	for r.i < len(r.b) {
		switch c := r.b[r.i]; c {
		case '"':
			r.i++
			for r.i < len(r.b) {
				k := bytes.IndexAny(r.b[r.i:], `"\`)
				if k < 0 {
					r.i = len(r.b)
					return
				}
				r.i += k
				if r.b[r.i] == '\\' {
					r.i += 2
					continue
				}
				r.i++
				break
			}
			if depth == 0 {
				return
			}
		case '{', '[':
			depth++
			r.i++
		case '}', ']':
			depth--
			r.i++
			if depth == 0 {
				return
			}
		case ',', ':', ' ', '\t', '\r', '\n':
			if depth == 0 {
				return
			}
			r.i++
		default:
			r.i++
			if depth == 0 && (r.i >= len(r.b) || isDelim(r.b[r.i])) {
				return
			}
		}
	}
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// parseTime parses the layout the store writes, RFC 3339 in UTC with 0
// to 9 fraction digits ("2006-01-02T15:04:05.999999999Z"), checking what
// time.Parse checks; ok is false for anything else.
func parseTime(s []byte) (time.Time, bool) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return time.Time{}, false
	}
	num := func(b []byte) (int, bool) {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	year, ok1 := num(s[0:4])
	month, ok2 := num(s[5:7])
	day, ok3 := num(s[8:10])
	hour, ok4 := num(s[11:13])
	minute, ok5 := num(s[14:16])
	sec, ok6 := num(s[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 {
		return time.Time{}, false
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := s[19 : len(s)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		n, ok := num(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for k := len(frac) - 1; k < 9; k++ {
			n *= 10
		}
		nsec = n
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
