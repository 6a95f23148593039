package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store/eventcheck"
)

// MaxDataDepth is the deepest nesting of arrays and objects that an
// appended event's data may have; see [eventcheck.MaxDataDepth].
const MaxDataDepth = eventcheck.MaxDataDepth

// maxLineDepth is the deepest nesting a line may have when a session file
// is read: the limit of encoding/json and of jsontext.
const maxLineDepth = 10000

// lineEncoder turns canonical events into JSONL lines. The zero value is
// ready; it is not safe for concurrent use.
type lineEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// envelope is an event without its data, as a line holds it.
type envelope struct {
	Seq    uint64       `json:"seq"`
	Type   string       `json:"type"`
	Time   time.Time    `json:"time"`
	Source *host.Source `json:"source,omitempty"`
}

// encode returns e, a canonical event, as one JSON object followed by
// '\n'. The data is copied as it is: the check of the append made it
// compact JSON. The result is valid until the next call.
func (le *lineEncoder) encode(e host.Event) ([]byte, error) {
	if le.enc == nil || le.buf.Cap() > 1<<16 {
		le.buf = bytes.Buffer{} // do not pin one huge event's buffer
		le.enc = json.NewEncoder(&le.buf)
		le.enc.SetEscapeHTML(false)
	}
	le.buf.Reset()
	if err := le.enc.Encode(envelope{Seq: e.Seq, Type: e.Type, Time: e.Time, Source: e.Source}); err != nil {
		return nil, fmt.Errorf("event %d %q: encode: %w", e.Seq, e.Type, err)
	}
	if len(e.Data) > 0 {
		le.buf.Truncate(le.buf.Len() - len("}\n"))
		le.buf.WriteString(`,"data":`)
		le.buf.Write(e.Data)
		le.buf.WriteString("}\n")
	}
	return le.buf.Bytes(), nil
}

// decodeLine decodes one line (without its '\n') into a canonical event.
// It checks the JSON and the fields every stored event has (seq, type,
// time), not the event's place in the log. Errors wrap ErrCorrupt.
func decodeLine(line []byte) (host.Event, error) {
	var d lineDecoder
	return d.decode(line)
}

// errNoValue marks a line that does not start with a complete JSON value:
// empty, incomplete or malformed. At the end of a file without a final
// newline, that is what a crash during an append leaves.
var errNoValue = errors.New("no complete JSON value")

// noValue wraps an error as errNoValue without changing its text.
type noValue struct{ error }

func (e noValue) Unwrap() error { return e.error }

func (noValue) Is(target error) bool { return target == errNoValue }

// maxShared bounds the distinct types and sources a decoder shares.
const maxShared = 256

// lineDecoder decodes a file's lines. A line in the form the store writes
// is read by the own-form reader ([ownReader]) in one pass over its bytes.
// Any other line, and any line that reader refuses, goes through one pass
// of a jsontext decoder that checks the syntax, the UTF-8 of every
// string, that no object has two equal names and the depth, while it
// reads the fields of the event; errors come from that path only. Either
// way the data stays a slice of the line, and equal types and sources are
// shared between events. A line in another form than the store writes (a
// key spelled in another case, an unknown key, a null source, a seq
// written as 1.0, an escape in the type) is decoded by encoding/json once
// checked, so every line gives the event encoding/json gives
// (FuzzLineDecoder checks this). The events it returns alias the line. It
// is not safe for concurrent use.
type lineDecoder struct {
	buf     bytes.Buffer
	dec     *jsontext.Decoder
	reader  ownReader
	types   map[string]string       // shared types by their text
	sources map[string]*host.Source // shared sources by their JSON text
	checked int                     // lines read by jsontext, for tests
	slow    int                     // lines decoded by encoding/json, for tests
}

func (d *lineDecoder) decode(line []byte) (host.Event, error) {
	e, ok := d.own(line)
	var err error
	if !ok {
		e, err = d.read(line, false)
	}
	if err != nil && utf8.Valid(line) {
		// Every byte is UTF-8, so the refusal may be an escaped half
		// surrogate, which earlier versions kept: read it as they did.
		if lenient, lerr := d.read(line, true); lerr == nil {
			e, err = lenient, nil
		}
	}
	if err != nil {
		switch {
		case len(bytes.TrimLeft(line, " \t\r")) == 0:
			err = errors.New("empty line")
		case errors.Is(err, io.ErrUnexpectedEOF):
			err = fmt.Errorf("incomplete JSON value: %w", err)
		}
		err = fmt.Errorf("%w: %w", ErrCorrupt, err)
		if !startsWithValue(line) {
			err = noValue{err}
		}
		return host.Event{}, err
	}
	switch {
	case e.Seq == 0:
		return host.Event{}, fmt.Errorf("%w: seq is missing or 0", ErrCorrupt)
	case e.Type == "":
		return host.Event{}, fmt.Errorf("%w: event %d: type is missing", ErrCorrupt, e.Seq)
	case e.Time.IsZero():
		return host.Event{}, fmt.Errorf("%w: event %d %q: time is missing", ErrCorrupt, e.Seq, e.Type)
	}
	if err := eventcheck.Fields(&e); err != nil {
		return host.Event{}, fmt.Errorf("%w: event %d: %w", ErrCorrupt, e.Seq, err)
	}
	return e, nil
}

// reset readies the decoder to read line; lenient accepts an escaped half
// surrogate.
func (d *lineDecoder) reset(line []byte, lenient bool) {
	d.buf = *bytes.NewBuffer(line)
	switch {
	case d.dec == nil:
		d.dec = jsontext.NewDecoder(&d.buf)
	case lenient:
		d.dec.Reset(&d.buf, jsontext.AllowInvalidUTF8(true))
	default:
		d.dec.Reset(&d.buf)
	}
}

// read decodes and checks line in one pass when it is in the store's
// form, else checks it and hands it to encoding/json.
func (d *lineDecoder) read(line []byte, lenient bool) (host.Event, error) {
	d.checked++
	d.reset(line, lenient)
	e, ok, err := d.fields(line)
	if err != nil {
		return host.Event{}, err
	}
	if !ok {
		return d.decodeSlow(line, lenient)
	}
	if err := d.end(); err != nil {
		return host.Event{}, err
	}
	return e, nil
}

// fields reads the event object field by field; ok is false as soon as
// the line turns out to be in another form than the store writes.
func (d *lineDecoder) fields(line []byte) (e host.Event, ok bool, err error) {
	dec := d.dec
	if dec.PeekKind() != '{' {
		return e, false, nil
	}
	if _, err := dec.ReadToken(); err != nil {
		return e, false, err
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadValue()
		if err != nil {
			return e, false, err
		}
		if string(name) == `"data"` {
			data, compact, err := eventcheck.ReadValue(dec, line, maxLineDepth)
			if err != nil {
				return e, false, err
			}
			if !compact {
				return e, false, nil
			}
			e.Data = data[:len(data):len(data)] // capped: an append to it must not reach the next line
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			return e, false, err
		}
		switch string(name) {
		case `"seq"`:
			if e.Seq, ok = parseSeq(v); !ok {
				return e, false, nil
			}
		case `"type"`:
			if v[0] != '"' || len(v) == 2 || bytes.IndexByte(v, '\\') >= 0 {
				return e, false, nil
			}
			e.Type = d.sharedType(v[1 : len(v)-1])
		case `"time"`:
			if e.Time.UnmarshalJSON(v) != nil {
				return e, false, nil
			}
		case `"source"`:
			if e.Source = d.source(v); e.Source == nil {
				return e, false, nil
			}
		default:
			return e, false, nil
		}
	}
	if _, err := dec.ReadToken(); err != nil { // '}'
		return e, false, err
	}
	return e, true, nil
}

// end checks that nothing but whitespace follows the value just read.
func (d *lineDecoder) end() error {
	switch _, err := d.dec.ReadToken(); {
	case err == io.EOF:
		return nil
	case err != nil:
		return fmt.Errorf("data after the JSON value: %w", err)
	}
	return errors.New("data after the JSON value")
}

// decodeSlow checks line in one pass and then decodes it with
// encoding/json, for a line in another form than the store writes.
func (d *lineDecoder) decodeSlow(line []byte, lenient bool) (host.Event, error) {
	d.slow++
	d.reset(line, lenient)
	if _, _, err := eventcheck.ReadValue(d.dec, line, maxLineDepth); err != nil {
		return host.Event{}, err
	}
	if err := d.end(); err != nil {
		return host.Event{}, err
	}
	var e host.Event
	if err := json.Unmarshal(line, &e); err != nil {
		return host.Event{}, err
	}
	if len(e.Data) > 0 {
		// A fresh copy, checked with the line: compact it in place.
		v := jsontext.Value(e.Data)
		if err := v.Compact(); err != nil {
			return host.Event{}, err
		}
		e.Data = json.RawMessage(v)
	}
	return e, nil
}

// parseSeq parses a plain decimal number of at most 19 digits; ok is false
// for anything else (a sign, a fraction, an exponent), which
// encoding/json decides.
func parseSeq(v []byte) (n uint64, ok bool) {
	if len(v) == 0 || len(v) > 19 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// sharedType returns b, a type checked by the decoder, as a string that
// equal types share.
func (d *lineDecoder) sharedType(b []byte) string {
	if s, ok := d.types[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.types == nil {
		d.types = map[string]string{}
	}
	if len(d.types) < maxShared {
		d.types[s] = s
	}
	return s
}

// source decodes a source object as encoding/json does, sharing equal
// ones; nil means the line is not in the store's form (a null or an
// object with unknown keys).
func (d *lineDecoder) source(v []byte) *host.Source {
	if src, ok := d.sources[string(v)]; ok {
		return src
	}
	if v[0] != '{' {
		return nil
	}
	src := new(host.Source)
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.DisallowUnknownFields()
	if dec.Decode(src) != nil {
		return nil
	}
	if d.sources == nil {
		d.sources = map[string]*host.Source{}
	}
	if len(d.sources) < maxShared {
		d.sources[string(v)] = src
	}
	return src
}

// startsWithValue reports whether line starts with a complete JSON value
// (as encoding/json reads one, whatever follows it).
func startsWithValue(line []byte) bool {
	var v json.RawMessage
	return json.NewDecoder(bytes.NewReader(line)).Decode(&v) == nil
}
