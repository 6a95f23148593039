package eventcheck_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store/eventcheck"
)

func nested(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }

func TestData(t *testing.T) {
	tests := []struct {
		name, give, want, wantErr string
	}{
		{"compact object", `{"a":[1,"x\n\"y",true,null]}`, `{"a":[1,"x\n\"y",true,null]}`, ""},
		{"whitespace", " { \"a\" : [ 1 , 2 ] }\n", `{"a":[1,2]}`, ""},
		{"spaces in strings kept", `{"a b":"c d"}`, `{"a b":"c d"}`, ""},
		{"scalar", `"s"`, `"s"`, ""},
		{"empty", ``, ``, ""},
		{"at the depth limit", nested(eventcheck.MaxDataDepth), nested(eventcheck.MaxDataDepth), ""},
		{"over the depth limit", nested(eventcheck.MaxDataDepth + 1), "", "nested deeper than 1000"},
		{"duplicate name", `{"a":1,"a":2}`, "", `duplicate object member name "a"`},
		{"duplicate name behind an escape", `{"a":1,"\u0061":2}`, "", `duplicate object member name "a"`},
		{"equal names in sibling objects", `[{"a":1},{"a":2}]`, `[{"a":1},{"a":2}]`, ""},
		{"invalid UTF-8", "\"a\xffb\"", "", "invalid UTF-8"},
		{"half a surrogate pair", `"\ud800"`, "", "invalid surrogate pair"},
		{"two values", `1 2`, "", "data after the JSON value"},
		{"torn", `{"a":`, "", "unexpected EOF"},
		{"junk", `{"a":1}x`, "", "invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := eventcheck.Data([]byte(tt.give), eventcheck.MaxDataDepth)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Data = %q, %v; want an error saying %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("Data = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestAppendAndStored(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600))
	tests := []struct {
		name       string
		give       host.Event
		appendErr  string // empty: accepted
		storedErr  string
		wantData   string
		wantStored string
	}{
		{"good", host.Event{Seq: 1, Type: "t", Time: at, Data: json.RawMessage(` {"a": 1} `)}, "", "", `{"a":1}`, `{"a":1}`},
		{"empty type", host.Event{Seq: 1, Time: at}, "type is empty", "event 1: type is empty", "", ""},
		{"type not UTF-8", host.Event{Seq: 1, Type: "t\xff", Time: at}, "is not UTF-8", "is not UTF-8", "", ""},
		{"source not UTF-8", host.Event{Seq: 1, Type: "t", Time: at, Source: &host.Source{Kind: "\xff"}}, "source", "source", "", ""},
		{"year 10000", host.Event{Seq: 1, Type: "t", Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, "year outside", "year outside", "", ""},
		{"duplicate name", host.Event{Seq: 2, Type: "t", Time: at, Data: json.RawMessage(`{"a":1,"a":2}`)}, "duplicate", `event 2 "t": data: jsontext: duplicate`, "", ""},
		{"deep for an append, not for a reader", host.Event{Seq: 1, Type: "t", Time: at, Data: json.RawMessage(nested(2000))}, "nested deeper", "", "", nested(2000)},
		{"half surrogate: refused new, kept when stored", host.Event{Seq: 1, Type: "t", Time: at, Data: json.RawMessage(`["\ud800"]`)}, "surrogate", "", "", `["\ud800"]`},
		{"half surrogate next to bad UTF-8", host.Event{Seq: 1, Type: "t", Time: at, Data: json.RawMessage("[\"\\ud800\",\"\xff\"]")}, "surrogate", "surrogate", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct {
				what    string
				check   func(*host.Event) error
				wantErr string
				want    string
			}{{"Append", eventcheck.Append, tt.appendErr, tt.wantData}, {"Stored", eventcheck.Stored, tt.storedErr, tt.wantStored}} {
				e := tt.give
				err := c.check(&e)
				if c.wantErr != "" {
					if !errors.Is(err, eventcheck.ErrBadEvent) || !strings.Contains(err.Error(), c.wantErr) {
						t.Errorf("%s = %v; want ErrBadEvent saying %q", c.what, err, c.wantErr)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s = %v", c.what, err)
					continue
				}
				if string(e.Data) != c.want || e.Time.Location() != time.UTC || !e.Time.Equal(at) && tt.give.Time.Equal(at) {
					t.Errorf("%s left data %q time %v; want %q in UTC", c.what, e.Data, e.Time, c.want)
				}
			}
		})
	}
}

// FuzzData is the differential test of Data against encoding/json: what
// encoding/json calls malformed is refused, what Data accepts is what
// json.Compact gives, and the only other refusals are invalid UTF-8,
// duplicate names and depth.
func FuzzData(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":[1,-2.5e+3,true,false,null,"x\u00e9\n"]}`, ` {"a" : 1 } `, `{"a":1,}`, `[1,]`,
		`01`, `-`, `1.`, `1e`, `"\x"`, "\"a\xffb\"", `{"a":1,"a":2}`, `{"\u0061":1,"a":2}`, `[[[[`, `"\ud800"`,
		"\"tab\there\"", `{"a":1}x`, `nul`, ``, `1 2`, nested(1001),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in := bytes.Clone(b)
		got, err := eventcheck.Data(b, eventcheck.MaxDataDepth)
		if !bytes.Equal(in, b) {
			t.Fatalf("Data changed its input %q to %q", in, b)
		}
		if len(bytes.TrimLeft(b, " \t\r\n")) == 0 {
			if len(b) == 0 && (err != nil || got != nil) {
				t.Fatalf("Data(empty) = %q, %v", got, err)
			}
			return
		}
		valid := json.Valid(b)
		if err == nil {
			var want bytes.Buffer
			if !valid || json.Compact(&want, b) != nil || !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("Data(%q) = %q, json.Valid %v, json.Compact %q", b, got, valid, want.Bytes())
			}
			return
		}
		if !valid {
			return
		}
		lenient := jsontext.Value(b).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
		if lenient && !strings.Contains(err.Error(), "duplicate") && !strings.Contains(err.Error(), "UTF-8") &&
			!strings.Contains(err.Error(), "surrogate") && !strings.Contains(err.Error(), "nested deeper") {
			t.Fatalf("Data(%q) refused valid JSON: %v", b, err)
		}
	})
}
