package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store/eventcheck"
)

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
	if err := eventcheck.Stored(&e); err != nil {
		return host.Event{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
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
