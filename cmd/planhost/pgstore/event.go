package pgstore

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
	"github.com/dshgo/planmode/store/eventcheck"
)

// prepare checks e as every store does (package eventcheck; PostgreSQL
// text cannot hold NUL, so a type or source holding one is refused too),
// puts it in the form the stores keep, runs the validators and returns
// its row.
func (s *Store) prepare(e *host.Event) (row, error) {
	if err := checkNUL(e); err != nil {
		return row{}, err
	}
	e.Time = e.Time.Round(0)
	if err := eventcheck.Append(e); err != nil {
		return row{}, err
	}
	if err := s.vs.Check(*e); err != nil {
		return row{}, err
	}
	return toRow(*e)
}

// checkNUL refuses a type or source holding NUL, which PostgreSQL text
// cannot hold.
func checkNUL(e *host.Event) error {
	if strings.IndexByte(e.Type, 0) >= 0 {
		return fmt.Errorf("type %q holds NUL: %w", e.Type, store.ErrBadEvent)
	}
	if src := e.Source; src != nil {
		for _, s := range []string{string(src.Kind), src.Plugin, src.Form} {
			if strings.IndexByte(s, 0) >= 0 {
				return fmt.Errorf("type %q: source %+v holds NUL: %w", e.Type, *src, store.ErrBadEvent)
			}
		}
	}
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
	if err := eventcheck.Stored(&e); err != nil {
		return host.Event{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return e, nil
}
