package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store/eventcheck"
)

// MaxDataDepth is the deepest nesting of arrays and objects that an
// appended event's data may have; see [eventcheck.MaxDataDepth].
const MaxDataDepth = eventcheck.MaxDataDepth

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

// decodeLine decodes one line of a session file (without its '\n') into
// a canonical event. json v2 reads the line in one pass and checks its
// syntax, the UTF-8 of every string and that no object has two equal
// names; then the fields every stored event has (seq, type, time) and the
// check every store makes of an event read back ([eventcheck.Stored]).
// The event's place in the log is the caller's to check. Errors wrap
// ErrCorrupt.
func decodeLine(line []byte) (host.Event, error) {
	if len(bytes.TrimLeft(line, " \t\r")) == 0 {
		return host.Event{}, fmt.Errorf("%w: empty line", ErrCorrupt)
	}
	var e host.Event
	// Earlier versions wrote an escaped half surrogate pair: on a line
	// that is otherwise UTF-8, read it as they did (U+FFFD).
	err := jsonv2.Unmarshal(line, &e, jsontext.AllowInvalidUTF8(utf8.Valid(line)))
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return host.Event{}, fmt.Errorf("%w: incomplete JSON value: %w", ErrCorrupt, err)
	case err != nil:
		return host.Event{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
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

// startsWithValue reports whether line starts with a complete JSON value,
// whatever its strings hold and whatever follows it. A final line that
// does not is what a crash during an append leaves.
func startsWithValue(line []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	_, err := dec.ReadValue()
	return err == nil
}
