// Package eventcheck is the one check every store makes of an event: when
// it is appended and again when it is read back, so that no store keeps,
// or hands to a plugin, an event that another store would refuse.
//
// An event passes when its type is non-empty UTF-8, its source (if any)
// is UTF-8, its time falls in the years 0 to 9999, and its data (if any)
// is exactly one JSON value with valid UTF-8 in every string, no object
// holding two equal names, and arrays and objects nested at most
// [MaxDataDepth] deep. The check also puts the event in the form both
// stores keep: time in UTC without a monotonic reading, empty data nil,
// other data compact. Syntax, UTF-8, names and depth are checked in one
// pass over the data by the [jsontext] decoder.
package eventcheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/dshgo/planmode/host"
)

// ErrBadEvent means an event cannot be stored: an empty or non-UTF-8 type
// or source, data that is not one JSON value of valid UTF-8 with unique
// names, data nested too deep, or a time outside the years 0 to 9999.
var ErrBadEvent = errors.New("bad event")

// MaxDataDepth is the deepest nesting of arrays and objects an appended
// event's data may have. It is far below the nesting the stores' readers
// accept (10000, the limit of encoding/json), so an event that was
// appended can always be read back, with the event object and any
// wrapping around it.
const MaxDataDepth = 1000

// maxStoredDepth is the deepest nesting of data read back: inside the
// event object of a session file's line, which may nest 10000 deep.
const maxStoredDepth = 9999

// Append checks e, an event about to be appended with its Seq and Time
// set, and puts it in the stored form. The data it leaves is e's own when
// that was already compact, else a new slice. Errors wrap [ErrBadEvent]
// and name the event's type.
func Append(e *host.Event) error {
	if err := Fields(e); err != nil {
		return err
	}
	data, err := Data(e.Data, MaxDataDepth)
	if err != nil {
		return fmt.Errorf("type %q: data: %w: %w", e.Type, err, ErrBadEvent)
	}
	e.Data = data
	return nil
}

// Stored checks e, an event read back from a store, as [Append] does, and
// puts it in the stored form. It accepts what earlier versions of the
// stores accepted at append: data nested up to the readers' limit, and a
// "\ud800"-style escape of half a surrogate pair (which decodes to
// U+FFFD). Errors wrap [ErrBadEvent] and name the event.
func Stored(e *host.Event) error {
	if err := Fields(e); err != nil {
		return fmt.Errorf("event %d: %w", e.Seq, err)
	}
	data, err := storedData(e.Data)
	if err != nil {
		return fmt.Errorf("event %d %q: data: %w: %w", e.Seq, e.Type, err, ErrBadEvent)
	}
	e.Data = data
	return nil
}

// Fields checks e's type, source and time and puts its time and empty
// data in the stored form; the data itself is left to [Data]. Errors wrap
// [ErrBadEvent] and name the event's type.
func Fields(e *host.Event) error {
	if e.Type == "" {
		return fmt.Errorf("type is empty: %w", ErrBadEvent)
	}
	if !utf8.ValidString(e.Type) {
		return fmt.Errorf("type %q is not UTF-8: %w", e.Type, ErrBadEvent)
	}
	if src := e.Source; src != nil {
		if !utf8.ValidString(string(src.Kind)) || !utf8.ValidString(src.Plugin) || !utf8.ValidString(src.Form) {
			return fmt.Errorf("type %q: source %+v is not UTF-8: %w", e.Type, *src, ErrBadEvent)
		}
	}
	e.Time = e.Time.UTC()
	if y := e.Time.Year(); y < 0 || y > 9999 {
		return fmt.Errorf("type %q: time %s: year outside 0..9999: %w", e.Type, e.Time, ErrBadEvent)
	}
	if len(e.Data) == 0 {
		e.Data = nil
	}
	return nil
}

// Data checks that b is one JSON value, with JSON whitespace around it
// allowed, whose strings are valid UTF-8, whose objects have unique names
// and whose arrays and objects nest at most maxDepth deep. It returns the
// value compact: b itself (without surrounding whitespace) when it
// already is, else a new slice. Empty b is returned as nil.
func Data(b []byte, maxDepth int) ([]byte, error) {
	if len(b) == 0 {
		return nil, nil
	}
	d := decoders.Get().(*decoder)
	defer d.put()
	return d.data(b, maxDepth, false)
}

// storedData is Data with the readers' depth, accepting half surrogate
// pairs in escapes as earlier versions did.
func storedData(b []byte) ([]byte, error) {
	data, err := Data(b, maxStoredDepth)
	if err == nil || !utf8.Valid(b) {
		return data, err
	}
	// Every byte is valid UTF-8, so what the strict pass refused may be
	// an escaped half surrogate only; see whether it was.
	d := decoders.Get().(*decoder)
	defer d.put()
	if lenient, lerr := d.data(b, maxStoredDepth, true); lerr == nil {
		return lenient, nil
	}
	return nil, err
}

// decoder is a reusable jsontext decoder reading from buf.
type decoder struct {
	buf bytes.Buffer
	dec *jsontext.Decoder
}

var decoders = sync.Pool{New: func() any {
	d := new(decoder)
	d.dec = jsontext.NewDecoder(&d.buf)
	return d
}}

func (d *decoder) put() {
	d.buf = bytes.Buffer{} // keep no caller memory alive
	d.dec.Reset(&d.buf)
	decoders.Put(d)
}

// data is Data on d; lenient accepts escaped half surrogates.
func (d *decoder) data(b []byte, maxDepth int, lenient bool) ([]byte, error) {
	d.buf = *bytes.NewBuffer(b)
	if lenient {
		d.dec.Reset(&d.buf, jsontext.AllowInvalidUTF8(true))
	} else {
		d.dec.Reset(&d.buf)
	}
	v, compact, err := ReadValue(d.dec, b, maxDepth)
	if err != nil {
		return nil, err
	}
	if _, err := d.dec.ReadToken(); err == nil {
		return nil, errors.New("data after the JSON value")
	} else if err != io.EOF {
		return nil, err
	}
	if compact {
		return v, nil
	}
	out := jsontext.Value(slices.Clone(v))
	if err := out.Compact(); err != nil {
		return nil, err // cannot happen: v was checked
	}
	return out, nil
}

// ReadValue reads the next value of dec, checking that its arrays and
// objects nest at most maxDepth deep (counted from the value). in is what
// dec reads: it must hold the bytes dec is given, from offset 0. It
// returns the value's bytes in in and whether they are compact (no
// whitespace between tokens). The decoder checks the syntax, the UTF-8
// of strings and the uniqueness of names as its options say.
func ReadValue(dec *jsontext.Decoder, in []byte, maxDepth int) (v []byte, compact bool, err error) {
	base := dec.StackDepth()
	start, prev := -1, 0
	compact = true
	for {
		var n int
		switch dec.PeekKind() {
		case '{', '[':
			if dec.StackDepth()-base >= maxDepth {
				return nil, false, fmt.Errorf("arrays and objects nested deeper than %d at byte %d", maxDepth, dec.InputOffset())
			}
			if _, err := dec.ReadToken(); err != nil {
				return nil, false, err
			}
			n = 1
		case '}', ']':
			if _, err := dec.ReadToken(); err != nil {
				return nil, false, err
			}
			n = 1
		default: // a scalar, a name, or an error (kind 0), which ReadValue reports
			raw, err := dec.ReadValue()
			if err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return nil, false, err
			}
			n = len(raw)
		}
		end := int(dec.InputOffset())
		at := end - n
		if start < 0 {
			start = at
		} else if gap := in[prev:at]; len(gap) > 1 || len(gap) == 1 && gap[0] != ',' && gap[0] != ':' {
			compact = false
		}
		prev = end
		if dec.StackDepth() == base {
			return in[start:end], compact, nil
		}
	}
}
