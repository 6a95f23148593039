package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"
	"unicode/utf8"

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
	types   map[string]string       // checked types, shared
	sources map[string]*host.Source // checked sources by their text, shared
	// The last types and sources seen, by a hash of their text: a
	// cheaper look-up than the maps, which stay the reference.
	typeSlot [16]string
	srcSlot  [16]sourceText
	// The date of the last time parsed ("2006-01-02"), if dayOK, as
	// its first eight bytes and last two, and its midnight in Unix
	// seconds.
	dayLo   uint64
	dayHi   uint16
	dayUnix int64
	dayOK   bool
	fast    int // lines decoded by the fast path, for tests
	exact   int // of those, lines decoded by canonical, for tests
}

// sourceText is a shared source and the text it was decoded from.
type sourceText struct {
	text string
	src  *host.Source
}

// slot picks the place of a non-empty text in the recent types or sources.
func slot(b []byte) int { return (len(b)*7 + int(b[len(b)/2])) & 15 }

// maxInterned bounds the distinct types and sources a decoder shares.
const maxInterned = 256

func (d *fastDecoder) decode(line []byte) (host.Event, error) {
	e, ok, err := d.envelope(line)
	switch {
	case err != nil:
		return host.Event{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	case ok:
		d.fast++
		return e, nil
	}
	if err := d.check.check(line, maxLineDepth); err != nil {
		if je, ok := err.(*jsonError); ok && (je.Syntax || je.Deep) {
			// Malformed: let encoding/json say how, as it always did
			// (and tell a torn line from a complete one).
			return d.slow.decode(line)
		}
		return host.Event{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return d.slow.decode(line)
}

// envelope decodes a line in the store's own form in one pass that also
// checks it as checkJSON does: the values of "source" and "data" go
// through the checker, the other fields are read strictly. ok is false
// when the line is not in that form (the caller then checks it and
// decodes it with encoding/json); err is a refusal of a well-formed line
// in that form (invalid UTF-8, a duplicate key inside source or data).
func (d *fastDecoder) envelope(line []byte) (e host.Event, ok bool, err error) {
	if e, n, ok := d.canonical(line); ok && n == len(line) {
		d.exact++
		return e, true, nil
	}
	c := &d.check
	c.reset(line, 0, maxLineDepth)
	c.skipSpace()
	if c.i >= len(line) || line[c.i] != '{' {
		return e, false, nil
	}
	c.i++
	const (
		haveSeq = 1 << iota
		haveType
		haveTime
		haveSource
		haveData
	)
	have := 0
	for {
		c.skipSpace()
		key, ok := c.plainString()
		if !ok {
			return e, false, nil
		}
		c.skipSpace()
		if c.i >= len(line) || line[c.i] != ':' {
			return e, false, nil
		}
		c.i++
		c.skipSpace()
		var bit int
		switch string(key) {
		case "seq":
			bit = haveSeq
			if e.Seq, ok = c.uint(); !ok {
				return e, false, nil
			}
		case "type":
			bit = haveType
			s, ok := c.plainString()
			if !ok || len(s) == 0 || !utf8.Valid(s) {
				return e, false, nil
			}
			e.Type = d.intern(s)
		case "time":
			bit = haveTime
			s, ok := c.plainString()
			if !ok {
				return e, false, nil
			}
			if e.Time, ok = d.parseTime(s); !ok || e.Time.IsZero() {
				return e, false, nil
			}
		case "source":
			bit = haveSource
			start, clean := c.i, c.refused == nil
			if c.i >= len(line) || line[c.i] != '{' || c.value(1) != nil {
				return e, false, nil
			}
			// Share it only if the checker surely found nothing wrong
			// in it: canonical takes a shared source as checked.
			if e.Source = d.source(line[start:c.i], clean && c.refused == nil); e.Source == nil {
				return e, false, nil
			}
		case "data":
			bit = haveData
			start, spaces := c.i, c.spaces
			if c.value(1) != nil {
				return e, false, nil
			}
			e.Data = line[start:c.i:c.i] // capped: an append to it must not reach the next line
			if c.spaces != spaces || bytes.Equal(e.Data, []byte("null")) {
				return e, false, nil // not compact, or null: encoding/json decides
			}
		default:
			return e, false, nil
		}
		if have&bit != 0 {
			return e, false, nil // a repeated key: checkJSON refuses it
		}
		have |= bit
		c.skipSpace()
		if c.i >= len(line) {
			return e, false, nil
		}
		if line[c.i] == '}' {
			c.i++
			break
		}
		if line[c.i] != ',' {
			return e, false, nil
		}
		c.i++
	}
	c.skipSpace()
	if c.i != len(line) || have&(haveSeq|haveType|haveTime) != haveSeq|haveType|haveTime || e.Seq == 0 {
		return e, false, nil
	}
	if c.refused != nil {
		return host.Event{}, false, c.refused
	}
	return e, true, nil
}

// next decodes the line at the start of b, which ends at b's first
// '\n' or at b's end, when it is in exactly the form the store writes
// (see canonical); n is the line's length without its '\n'. ok is false
// for any other line, which the caller then cuts off and decodes.
func (d *fastDecoder) next(b []byte) (e host.Event, n int, ok bool) {
	if e, n, ok = d.canonical(b); ok {
		d.fast++
		d.exact++
	}
	return e, n, ok
}

// canonical decodes a line at the start of b in exactly the form the
// store writes, {"seq":N,"type":"T","time":"RFC3339Z"} with optional
// "source" and "data" after it in that order and no whitespace, followed
// by '\n' or the end of b; n is its length without the '\n'. ok is false
// for anything else, which envelope then reads field by field. No line
// it accepts holds a '\n' (it takes no whitespace, and strings hold no
// control characters), so it reads the same line whether b ends with it
// or not. It skips the checks whose result it already knows: a type or a
// source equal to one an earlier line had (shared only once checked), a
// date equal to the last one. The data is checked in full.
func (d *fastDecoder) canonical(line []byte) (e host.Event, n int, ok bool) {
	const (
		seqKey    = `{"seq":`
		typeKey   = `,"type":"`
		timeKey   = `","time":"`
		sourceKey = `,"source":`
		dataKey   = `,"data":`
	)
	if !bytes.HasPrefix(line, []byte(seqKey)) {
		return e, 0, false
	}
	i := len(seqKey)
	start := i
	for i < len(line) && isDigit(line[i]) {
		e.Seq = e.Seq*10 + uint64(line[i]-'0')
		i++
	}
	if i == start || i-start > 19 || line[start] == '0' {
		return e, 0, false // none, might overflow, or a leading (or only) zero
	}
	if !hasAt(line, i, typeKey) {
		return e, 0, false
	}
	i += len(typeKey)
	start, i = i, skipPlain(line, i)
	if i == start || i >= len(line) || line[i] != '"' {
		return e, 0, false // empty, or not plain ASCII: envelope decides
	}
	e.Type = d.intern(line[start:i]) // plain ASCII is UTF-8
	if !hasAt(line, i, timeKey) {
		return e, 0, false
	}
	i += len(timeKey)
	start, i = i, skipPlain(line, i)
	if i >= len(line) || line[i] != '"' {
		return e, 0, false
	}
	if e.Time, ok = d.parseTime(line[start:i]); !ok || e.Time.IsZero() {
		return e, 0, false
	}
	i++
	if hasAt(line, i, sourceKey) {
		i += len(sourceKey)
		end := bytes.IndexByte(line[i:], '}')
		if end < 0 {
			return e, 0, false
		}
		end += i + 1
		// A source object's first '}' is its end, unless a string in it
		// holds one; then it is not a shared source's text.
		raw := line[i:end]
		if r := &d.srcSlot[slot(raw)]; r.text == string(raw) {
			e.Source = r.src
		} else if e.Source, ok = d.sources[string(raw)]; ok {
			*r = sourceText{text: string(raw), src: e.Source}
		} else {
			return e, 0, false
		}
		i = end
	}
	if hasAt(line, i, dataKey) {
		i += len(dataKey)
		c := &d.check
		c.reset(line, i, maxLineDepth)
		if c.value(1) != nil || c.refused != nil || c.spaces != 0 {
			return e, 0, false
		}
		e.Data = line[i:c.i:c.i] // capped: an append to it must not reach the next line
		if string(e.Data) == "null" {
			return e, 0, false
		}
		i = c.i
	}
	if i >= len(line) || line[i] != '}' {
		return e, 0, false
	}
	if i++; i < len(line) && line[i] != '\n' {
		return e, 0, false
	}
	return e, i, true
}

// hasAt reports whether b holds s at offset i.
func hasAt(b []byte, i int, s string) bool {
	return len(b)-i >= len(s) && string(b[i:i+len(s)]) == s
}

// plainString reads a string of printable ASCII without escapes at c.i
// and returns its contents; ok is false (and c.i is unspecified) for
// anything else. The fast path's keys, time and (after a UTF-8 check)
// type are such strings.
func (c *jsonChecker) plainString() ([]byte, bool) {
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return nil, false
	}
	start := c.i + 1
	end := skipPlain(c.b, start)
	if end < len(c.b) && c.b[end] >= utf8.RuneSelf {
		// Non-ASCII text: the type may hold it; checked by the caller.
		end = bytes.IndexByte(c.b[start:], '"')
		if end < 0 {
			return nil, false
		}
		end += start
		for _, ch := range c.b[start:end] {
			if ch < 0x20 || ch == '\\' {
				return nil, false
			}
		}
	}
	if end >= len(c.b) || c.b[end] != '"' {
		return nil, false
	}
	c.i = end + 1
	return c.b[start:end], true
}

// uint reads a plain decimal number that fits a uint64 and is followed by
// a delimiter.
func (c *jsonChecker) uint() (uint64, bool) {
	start := c.i
	var n uint64
	for c.i < len(c.b) && isDigit(c.b[c.i]) {
		if c.i-start >= 19 {
			return 0, false // might overflow: let encoding/json decide
		}
		n = n*10 + uint64(c.b[c.i]-'0')
		c.i++
	}
	if c.i == start || c.b[start] == '0' && c.i-start > 1 || c.i < len(c.b) && !isDelim(c.b[c.i]) {
		return 0, false
	}
	return n, true
}

// intern returns b, a non-empty checked type, as a string equal ones
// share.
func (d *fastDecoder) intern(b []byte) string {
	r := &d.typeSlot[slot(b)]
	if *r == string(b) {
		return *r
	}
	if s, ok := d.types[string(b)]; ok {
		*r = s
		return s
	}
	s := string(b)
	*r = s
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
func (d *fastDecoder) source(raw []byte, share bool) *host.Source {
	if src, ok := d.sources[string(raw)]; ok {
		return src
	}
	r := jsonChecker{b: raw, i: 1} // after '{'
	var src host.Source
	for {
		r.skipSpace()
		key, ok := r.plainString()
		if !ok {
			return nil // also {}: encoding/json decides
		}
		r.skipSpace()
		r.i++ // ':', as checked
		r.skipSpace()
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
		r.skipSpace()
		if r.i < len(raw) && raw[r.i] == '}' {
			break
		}
		r.i++ // ',', as checked
	}
	p := &src
	if d.sources == nil {
		d.sources = map[string]*host.Source{}
	}
	if share && len(d.sources) < maxInterned {
		d.sources[string(raw)] = p
	}
	return p
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
// time.Parse checks; ok is false for anything else. The date of the last
// call is kept: the lines of a file mostly share it.
func (d *fastDecoder) parseTime(s []byte) (time.Time, bool) {
	if len(s) < 20 || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return time.Time{}, false
	}
	lo, hi := binary.LittleEndian.Uint64(s), binary.LittleEndian.Uint16(s[8:])
	if !d.dayOK || lo != d.dayLo || hi != d.dayHi {
		if s[4] != '-' || s[7] != '-' {
			return time.Time{}, false
		}
		year, ok1 := num(s[0:4])
		month, ok2 := num(s[5:7])
		day, ok3 := num(s[8:10])
		if !ok1 || !ok2 || !ok3 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) {
			return time.Time{}, false
		}
		d.dayLo, d.dayHi = lo, hi
		d.dayUnix = time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC).Unix()
		d.dayOK = true
	}
	hour, ok1 := num(s[11:13])
	minute, ok2 := num(s[14:16])
	sec, ok3 := num(s[17:19])
	if !ok1 || !ok2 || !ok3 || hour > 23 || minute > 59 || sec > 59 {
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
	// The same Time as time.Date(..., time.UTC) gives: no location, no
	// monotonic reading.
	return time.Unix(d.dayUnix+int64(hour*3600+minute*60+sec), int64(nsec)).UTC(), true
}

// num parses b, all decimal digits, as a number; ok is false otherwise.
func num(b []byte) (n int, ok bool) {
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
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
