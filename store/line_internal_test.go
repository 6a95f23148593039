package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store/eventcheck"
)

// lineSeeds are lines in the store's own form and near misses that must
// take encoding/json's way.
var lineSeeds = []string{
	`{"seq":1,"type":"user/message","time":"2025-01-02T03:04:05.123456789Z","source":{"kind":"user"},"data":{"content":[{"type":"text","text":"hi\n\"x\""}]}}`,
	`{"seq":2,"type":"turn/start","time":"2025-01-02T03:04:05Z","data":{"turn":1}}`,
	`{"seq":3,"type":"plan/mode","time":"2024-02-29T23:59:59.5Z","source":{"kind":"plugin","plugin":"plan-mode","form":"notice"},"data":{"active":true}}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z"}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","data":null}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","source":null}`,
	`{"Seq":4,"type":"t","time":"2025-01-02T03:04:05Z"}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","extra":[1,{"a":2}]}`,
	`{"seq":4.0,"type":"t","time":"2025-01-02T03:04:05Z"}`,
	`{"seq":-4,"type":"t","time":"2025-01-02T03:04:05Z"}`,
	`{"seq":18446744073709551616,"type":"t","time":"2025-01-02T03:04:05Z"}`,
	`{"seq":4,"type":"a\u002fb","time":"2025-01-02T03:04:05Z"}`,
	`{"seq":4,"type":"t","time":"2025-02-30T03:04:05Z"}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05+01:00"}`,
	`{"seq":4,"type":"t","time":"0001-01-01T00:00:00Z"}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05.Z"}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","data":{ "a" : 1 }}`,
	` {"seq":4,"type":"t","time":"2025-01-02T03:04:05Z"} `,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z"} x`,
	`{"seq":4,"type":"","time":"2025-01-02T03:04:05Z"}`,
	`{"seq":0,"type":"t","time":"2025-01-02T03:04:05Z"}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","source":{"kind":"user","kind":"plugin"}}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","source":{"kind":"user","x":1}}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","source":{"KIND":"user"}}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","data":"\ud800"}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","data":"\ud800\xff"}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","data":[1,-2.5e3,true,false,null,"x"]}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","data":{"a":`,
	`null`, `[]`, `"x"`, `{}`, ``, `{"seq":`, "\t",
}

// TestLineDecoderTakesTheStoresOwnLines checks that lines the store
// writes are decoded by the own-form reader (else the speed-up is lost),
// and lines in other forms by encoding/json.
func TestLineDecoderTakesTheStoresOwnLines(t *testing.T) {
	for i, line := range lineSeeds {
		var d lineDecoder
		_, err := d.decode([]byte(line))
		if i < 4 && (err != nil || d.checked != 0 || d.slow != 0) {
			t.Errorf("line %q: %v, jsontext used %v, encoding/json used %v; want the own-form reader", line, err, d.checked > 0, d.slow > 0)
		}
	}
	for _, i := range []int{5, 6, 7, 8, 11, 16, 22} {
		var d lineDecoder
		if _, err := d.decode([]byte(lineSeeds[i])); d.slow == 0 {
			t.Errorf("line %q (%v): encoding/json not used", lineSeeds[i], err)
		}
	}
}

// FuzzLineDecoder is the differential test of the line decoder against
// encoding/json: on any line both accept or both refuse (and agree on
// whether the line holds a complete value), and accepted lines give the
// same event. The lines of a file go through one decoder, as Open reads
// them, so what it shares from line to line cannot change a result. The
// reference refuses what encoding/json lets through and the store
// refuses: invalid UTF-8 and duplicate names (checked by jsontext).
func FuzzLineDecoder(f *testing.F) {
	for _, s := range lineSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(strings.Join(lineSeeds, "\n")))
	f.Add([]byte(lineSeeds[0] + "\n" + lineSeeds[0] + "\n" + lineSeeds[2] + "\n" + lineSeeds[2]))
	f.Fuzz(func(t *testing.T, file []byte) {
		var d lineDecoder
		for line := range bytes.SplitSeq(file, []byte{'\n'}) {
			got, gotErr := d.decode(line)
			want, wantErr := referenceDecode(line)
			if (gotErr == nil) != (wantErr == nil) || errors.Is(gotErr, errNoValue) != errors.Is(wantErr, errNoValue) {
				t.Fatalf("line %q:\ndecoder: %v\nreference: %v", line, gotErr, wantErr)
			}
			if gotErr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("line %q:\ndecoder: %+v\nreference: %+v", line, got, want)
			}
			if gotErr != nil && !errors.Is(gotErr, ErrCorrupt) {
				t.Fatalf("line %q: error %v is not ErrCorrupt", line, gotErr)
			}
		}
	})
}

// ownSeeds are lines in the store's form with data that the own-form
// reader must check as the jsontext path does, and near misses.
var ownSeeds = []string{
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":{"a":[1,-0,0.5,-2.5e-3,1E+9,true,false,null,"\u00e9\u2028\\\/\b\f\n\r\t"],"b":{},"c":[],"d":{"a":{"a":1}}}}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":"é中😀"}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":[{"a":1},{"a":1}]}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":{"a":1,"b":2,"a":3}}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":{"a":1,"\u0061":3}}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":"\ud83d\ude00"}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":"\udc00"}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":"\u00"}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":"\x"}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":"a` + "\x01" + `"}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":"\xff"}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":"\xed\xa0\x80"}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":[01]}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":[1.]}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":[-]}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":[1e]}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":[1,]}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":{"a":1,}}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":tru}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`,
	`{"seq":07,"type":"t","time":"2025-01-02T03:04:05Z"}`,
	`{"seq":7,"type":"t\u00e9","time":"2025-01-02T03:04:05Z"}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05\u005a"}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","source":{"kind":"user"},"source":{"kind":"user"}}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":1,"data":2}`,
	`{"seq":7,"type":"t","time":"2025-01-02T03:04:05Z","data":1}` + "\r",
}

// FuzzOwnReader is the differential test of the own-form reader against
// the jsontext path and encoding/json. A line the reader takes, the
// jsontext path takes too and reads to the same event, and the decoder
// then gives the event encoding/json gives. (A line it refuses goes to
// the jsontext path, which FuzzLineDecoder covers: the reader may refuse
// a good line, never take a bad one.)
func FuzzOwnReader(f *testing.F) {
	for _, s := range append(slices.Clone(lineSeeds), ownSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var own, other lineDecoder
		got, ok := own.own(line)
		if !ok {
			return
		}
		want, err := other.read(line, false)
		if err != nil {
			t.Fatalf("line %q: the own-form reader took it, jsontext refused: %v", line, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("line %q:\nown-form reader: %+v\njsontext: %+v", line, got, want)
		}
		got, gotErr := own.decode(line)
		want, wantErr := referenceDecode(line)
		if (gotErr == nil) != (wantErr == nil) || gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("line %q:\ndecoder: %+v %v\nencoding/json: %+v %v", line, got, gotErr, want, wantErr)
		}
	})
}

// TestOwnReaderSeeds checks which of ownSeeds the own-form reader takes:
// the good ones in the store's form, none of the bad ones.
func TestOwnReaderSeeds(t *testing.T) {
	for i, line := range ownSeeds {
		var d lineDecoder
		_, ok := d.own([]byte(line))
		if want := i < 3; ok != want {
			t.Errorf("line %q: taken %v, want %v", line, ok, want)
		}
	}
}

// referenceDecode decodes line with encoding/json.
func referenceDecode(line []byte) (host.Event, error) {
	fail := func(err error) (host.Event, error) {
		if !startsWithValue(line) {
			return host.Event{}, noValue{err}
		}
		return host.Event{}, err
	}
	if !json.Valid(line) {
		return fail(errors.New("invalid JSON"))
	}
	if !jsontext.Value(line).IsValid() && !(utf8.Valid(line) && jsontext.Value(line).IsValid(jsontext.AllowInvalidUTF8(true))) {
		return fail(errors.New("invalid UTF-8 or duplicate name"))
	}
	var e host.Event
	if err := json.Unmarshal(line, &e); err != nil {
		return fail(err)
	}
	if e.Seq == 0 || e.Type == "" || e.Time.IsZero() {
		return fail(errors.New("missing field"))
	}
	if len(e.Data) > 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, e.Data); err != nil {
			return fail(err)
		}
		e.Data = b.Bytes()
	}
	if err := eventcheck.Fields(&e); err != nil {
		return fail(err)
	}
	return e, nil
}

// TestLineDecoderCapsData checks that an event's data, a slice of the
// file's buffer, is capped, so that appending to it cannot overwrite the
// next line.
func TestLineDecoderCapsData(t *testing.T) {
	buf := []byte(lineSeeds[1] + "\n" + lineSeeds[0])
	var d lineDecoder
	e, err := d.decode(buf[:len(lineSeeds[1])])
	if err != nil || d.slow != 0 {
		t.Fatalf("decode = %v (slow %d)", err, d.slow)
	}
	if cap(e.Data) != len(e.Data) {
		t.Fatalf("data has cap %d > len %d", cap(e.Data), len(e.Data))
	}
}

// TestLineDecoderSharesTypesAndSources checks that equal types and
// sources of a file's lines share memory, up to a bound.
func TestLineDecoderSharesTypesAndSources(t *testing.T) {
	var d lineDecoder
	a, err1 := d.decode([]byte(lineSeeds[0]))
	b, err2 := d.decode([]byte(lineSeeds[0]))
	if err1 != nil || err2 != nil || a.Source != b.Source || len(d.types) != 1 {
		t.Fatalf("sources %p %p, types %d (%v %v)", a.Source, b.Source, len(d.types), err1, err2)
	}
	for i := range 2 * maxShared {
		line := fmt.Sprintf(`{"seq":1,"type":"t%d","time":"2025-01-02T03:04:05Z","source":{"kind":"k%d"}}`, i, i)
		if _, err := d.decode([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if len(d.types) > maxShared || len(d.sources) > maxShared {
		t.Fatalf("%d types and %d sources shared, bound %d", len(d.types), len(d.sources), maxShared)
	}
}

// BenchmarkLineDecoder decodes the lines of BenchmarkOpen's realistic file
// (a user message with a source, and an assistant message whose text holds
// \n, \t and \") one at a time on one goroutine, by the own-form reader
// and by the jsontext path it hands other lines to; docs/performance.md
// gives the ratio.
func BenchmarkLineDecoder(b *testing.B) {
	reply, err := json.Marshal(host.AssistantMessage{Text: "I read the file. The loop in \"scan\" stops early:\n\n\tfor i := 0; i < n; i++ {\n\t\tif s[i] == '\"' {\n\nI will fix it."})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	var lines [][]byte
	for i := range 4 {
		e := host.Event{Type: host.TypeAssistantMessage, Data: reply}
		if i == 0 {
			e = host.Event{Type: host.TypeUserMessage, Source: &host.Source{Kind: host.SourceUser},
				Data: json.RawMessage(`{"content":[{"type":"text","text":"please fix the \"parser\" bug\nthen run the tests again"}]}`)}
		}
		e.Seq, e.Time = uint64(i)+123456, t0.Add(time.Duration(i)*time.Millisecond+time.Duration(i)*time.Microsecond)
		var le lineEncoder
		line, err := le.encode(e)
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, bytes.Clone(line[:len(line)-1]))
	}
	for _, bc := range []struct {
		name string
		read func(d *lineDecoder, line []byte) error
	}{
		{"reader=own", func(d *lineDecoder, line []byte) error {
			if _, ok := d.own(line); !ok {
				return errors.New("not taken")
			}
			return nil
		}},
		{"reader=jsontext", func(d *lineDecoder, line []byte) error {
			_, err := d.read(line, false)
			return err
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var d lineDecoder
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := bc.read(&d, lines[i%len(lines)]); err != nil {
					b.Fatal(err)
				}
			}
			if d.slow > 0 {
				b.Fatalf("%d lines went to encoding/json", d.slow)
			}
		})
	}
}
