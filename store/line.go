package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/dshgo/planmode/host"
)

// canonicalize checks e and puts it in the form both stores keep: exactly
// what encoding it as a line and decoding that line gives back. Time is in
// UTC without a monotonic reading, empty Data is nil and other Data is
// compact JSON. With own (an event being appended) it also checks what
// the reader of a session file refuses; the session's log then copies the
// event's memory (host.LogBuilder.Append), so the log never aliases the
// caller's buffers.
func canonicalize(e *host.Event, own bool) error {
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
	if own && len(e.Data) > 0 && json.Valid(e.Data) {
		// Refuse what the reader of a session file refuses (invalid
		// UTF-8, duplicate keys, deep nesting), so that an event once
		// appended can always be read back.
		if err := checkJSON(e.Data, MaxDataDepth); err != nil {
			return fmt.Errorf("type %q: data: %w: %w", e.Type, err, ErrBadEvent)
		}
	}
	switch {
	case len(e.Data) == 0:
		e.Data = nil
	case own && !json.Valid(e.Data):
		return fmt.Errorf("type %q: data is not valid JSON: %w", e.Type, ErrBadEvent)
	case !isCompact(e.Data):
		var b bytes.Buffer
		b.Grow(len(e.Data))
		if err := json.Compact(&b, e.Data); err != nil {
			return fmt.Errorf("type %q: data: %w: %w", e.Type, ErrBadEvent, err)
		}
		e.Data = b.Bytes()
	}
	return nil
}

// isCompact reports whether the valid JSON text b has no whitespace outside
// strings.
func isCompact(b []byte) bool {
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if in {
			switch c {
			case '\\':
				i++
			case '"':
				in = false
			}
			continue
		}
		switch c {
		case '"':
			in = true
		case ' ', '\t', '\r', '\n':
			return false
		}
	}
	return true
}

// lineEncoder turns canonical events into JSONL lines. The zero value is
// ready; it is not safe for concurrent use.
type lineEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// encode returns e as one JSON object followed by '\n'. The result is
// valid until the next call.
func (le *lineEncoder) encode(e host.Event) ([]byte, error) {
	if le.enc == nil {
		le.enc = json.NewEncoder(&le.buf)
		le.enc.SetEscapeHTML(false)
	}
	if le.buf.Cap() > 1<<16 {
		le.buf = bytes.Buffer{} // do not pin one huge event's buffer
		le.enc = json.NewEncoder(&le.buf)
		le.enc.SetEscapeHTML(false)
	}
	le.buf.Reset()
	if err := le.enc.Encode(e); err != nil {
		return nil, fmt.Errorf("event %d %q: encode: %w", e.Seq, e.Type, err)
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

// lineDecoder decodes a file's lines one by one through a single
// json.Decoder, whose parser state is reused from line to line; decoding
// then allocates little more than what each event keeps (its type string,
// data and source). It is not safe for concurrent use.
type lineDecoder struct {
	src lineSource
	dec *json.Decoder
	fed int64 // bytes given to dec
	e   host.Event
}

// lineSource hands the decoder the current line and then reports io.EOF,
// so a line with an incomplete value never reads into the next one.
type lineSource struct{ b []byte }

func (s *lineSource) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}

func (d *lineDecoder) decode(line []byte) (host.Event, error) {
	e, err := d.decodeJSON(line)
	if err != nil {
		d.dec = nil // a json.Decoder that failed stays failed
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
	if err := canonicalize(&e, false); err != nil {
		return host.Event{}, fmt.Errorf("%w: event %d: %w", ErrCorrupt, e.Seq, err)
	}
	return e, nil
}

// decodeJSON decodes line, which must hold exactly one JSON value.
func (d *lineDecoder) decodeJSON(line []byte) (host.Event, error) {
	if d.dec == nil {
		d.dec = json.NewDecoder(&d.src)
		d.fed = 0
	}
	d.src.b = line
	d.fed += int64(len(line))
	d.e = host.Event{}
	if err := d.dec.Decode(&d.e); err != nil {
		return host.Event{}, decodeError(err)
	}
	if d.dec.InputOffset() != d.fed {
		// Only whitespace may follow the value. What the decoder holds it
		// skips before the next value; what it never read is dropped.
		held, _ := io.ReadAll(d.dec.Buffered())
		unread := d.src.b
		d.src.b = nil
		d.fed -= int64(len(unread))
		if !isSpace(held) || !isSpace(unread) {
			return host.Event{}, fmt.Errorf("%w: data after the JSON value", ErrCorrupt)
		}
	}
	// encoding/json replaces invalid UTF-8 and keeps the last of two equal
	// keys; a file this store wrote has neither, so either is corruption.
	if err := checkJSON(line, maxLineDepth); err != nil {
		return host.Event{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return d.e, nil
}

// decodeError wraps an error of json.Decoder.Decode as ErrCorrupt, and
// also as errNoValue when no complete value was read.
func decodeError(err error) error {
	var syntax *json.SyntaxError
	switch {
	case err == io.EOF:
		return noValue{fmt.Errorf("%w: empty line", ErrCorrupt)}
	case err == io.ErrUnexpectedEOF:
		return noValue{fmt.Errorf("%w: incomplete JSON value", ErrCorrupt)}
	case errors.As(err, &syntax):
		return noValue{fmt.Errorf("%w: %w", ErrCorrupt, err)}
	}
	return fmt.Errorf("%w: %w", ErrCorrupt, err)
}

// isSpace reports whether b is all JSON whitespace other than '\n'.
func isSpace(b []byte) bool {
	return len(bytes.TrimLeft(b, " \t\r")) == 0
}
