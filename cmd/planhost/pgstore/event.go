package pgstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
)

// canonicalize checks e and puts it in the form the stores keep (the same
// as package store's): time in UTC without a monotonic reading, empty data
// nil, other data compact JSON (the session's log then copies what the
// event points to, so it shares no memory with the caller). PostgreSQL
// text cannot hold NUL, so a type or source holding one is
// refused too.
func canonicalize(e *host.Event) error {
	if e.Type == "" {
		return fmt.Errorf("type is empty: %w", store.ErrBadEvent)
	}
	if !utf8.ValidString(e.Type) || strings.IndexByte(e.Type, 0) >= 0 {
		return fmt.Errorf("type %q is not UTF-8 text without NUL: %w", e.Type, store.ErrBadEvent)
	}
	if src := e.Source; src != nil {
		for _, s := range []string{string(src.Kind), src.Plugin, src.Form} {
			if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
				return fmt.Errorf("type %q: source %+v is not UTF-8 text without NUL: %w", e.Type, *src, store.ErrBadEvent)
			}
		}
	}
	e.Time = e.Time.UTC().Round(0)
	if y := e.Time.Year(); y < 0 || y > 9999 {
		return fmt.Errorf("type %q: time %s: year outside 0..9999: %w", e.Type, e.Time, store.ErrBadEvent)
	}
	if len(e.Data) == 0 {
		e.Data = nil
		return nil
	}
	if !json.Valid(e.Data) {
		return fmt.Errorf("type %q: data is not valid JSON: %w", e.Type, store.ErrBadEvent)
	}
	var b bytes.Buffer
	b.Grow(len(e.Data))
	if err := json.Compact(&b, e.Data); err != nil {
		return fmt.Errorf("type %q: data: %w: %w", e.Type, store.ErrBadEvent, err)
	}
	e.Data = slices.Clip(b.Bytes())
	return nil
}

// row is an event as stored: the time split into microseconds and the
// nanoseconds below them, and the source as JSON.
type row struct {
	seq    int64
	typ    string
	at     time.Time
	atNS   int16
	source []byte
	data   []byte
}

func toRow(e host.Event) (row, error) {
	r := row{
		seq:  int64(e.Seq),
		typ:  e.Type,
		at:   e.Time.Truncate(time.Microsecond),
		atNS: int16(e.Time.Nanosecond() % 1000),
		data: e.Data,
	}
	if e.Source != nil {
		b, err := json.Marshal(e.Source)
		if err != nil {
			return row{}, fmt.Errorf("type %q: source: %w: %w", e.Type, store.ErrBadEvent, err)
		}
		r.source = b
	}
	return r, nil
}

func (r row) event() (host.Event, error) {
	e := host.Event{
		Seq:  uint64(r.seq),
		Type: r.typ,
		Time: r.at.Add(time.Duration(r.atNS)).UTC(),
	}
	if len(r.data) > 0 {
		e.Data = json.RawMessage(r.data)
	}
	if r.source != nil {
		e.Source = new(host.Source)
		if err := json.Unmarshal(r.source, e.Source); err != nil {
			return host.Event{}, fmt.Errorf("event %d %q: source: %w: %w", r.seq, r.typ, ErrCorrupt, err)
		}
	}
	return e, nil
}
