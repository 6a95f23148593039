package store

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fastSeeds are lines in the store's own form and near misses that the
// fast path must hand to encoding/json.
var fastSeeds = []string{
	`{"seq":1,"type":"user/message","time":"2025-01-02T03:04:05.123456789Z","source":{"kind":"user"},"data":{"content":[{"type":"text","text":"hi"}]}}`,
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
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","data":"\ud800"}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","data":[1,-2.5e3,true,false,null,"x"]}`,
	`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","data":{"a":`,
	`null`, `[]`, `"x"`, `{}`, ``, `{"seq":`,
}

// TestFastDecoderTakesTheStoresOwnLines checks that lines the store
// writes are decoded by the fast path (else the speed-up is lost), and
// near misses are not.
func TestFastDecoderTakesTheStoresOwnLines(t *testing.T) {
	for i, line := range fastSeeds {
		var d fastDecoder
		_, err := d.decode([]byte(line))
		wantFast := i < 4 || slices.Contains([]int{17, 23, 24}, i) // store's form, or data of any shape
		if (d.fast == 1) != wantFast {
			t.Errorf("line %q: fast path %v (error %v), want %v", line, d.fast == 1, err, wantFast)
		}
	}
}

// FuzzFastDecoder is the differential test of the fast decoder against the
// encoding/json one: on any line both accept or both refuse (and agree on
// whether the line holds a complete value), and accepted lines give the
// same event.
func FuzzFastDecoder(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast fastDecoder
		got, gotErr := fast.decode(bytes.Clone(line))
		var slow lineDecoder
		want, wantErr := slow.decode(line)
		if (gotErr == nil) != (wantErr == nil) || errors.Is(gotErr, errNoValue) != errors.Is(wantErr, errNoValue) {
			t.Fatalf("line %q:\nfast: %v\njson: %v", line, gotErr, wantErr)
		}
		if gotErr == nil && !sameDecoded(got, want) {
			t.Fatalf("line %q:\nfast: %+v\njson: %+v", line, got, want)
		}
	})
}

// FuzzFastDecoderLines is FuzzFastDecoder over the lines of a file read
// by one decoder, as a session file is: what the decoder keeps from line
// to line (shared types and sources, the last date) must not change what
// it accepts or what it gives.
func FuzzFastDecoderLines(f *testing.F) {
	f.Add([]byte(strings.Join(fastSeeds, "\n")))
	f.Add([]byte(fastSeeds[0] + "\n" + fastSeeds[0] + "\n" + fastSeeds[2] + "\n" + fastSeeds[2]))
	f.Add([]byte(`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","source":{"kind":"a","kind":"b"}}` + "\n" +
		`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","source":{"kind":"a","kind":"b"}}`))
	f.Add([]byte(`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","data":"\xff","source":{"kind":"a"}}` + "\n" +
		`{"seq":4,"type":"t","time":"2025-01-02T03:04:05Z","source":{"kind":"a"}}`))
	f.Add([]byte(`{"seq":4,"type":"t","time":"2024-02-29T03:04:05Z"}` + "\n" +
		`{"seq":4,"type":"t","time":"2024-02-29T23:59:60Z"}` + "\n" + `{"seq":4,"type":"t","time":"2024-02-29T00:00:00.000000001Z"}`))
	f.Fuzz(func(t *testing.T, file []byte) {
		var fast, inPlace fastDecoder
		for rest := file; ; {
			line, tail, more := bytes.Cut(rest, []byte{'\n'})
			got, gotErr := fast.decode(bytes.Clone(line))
			var slow lineDecoder
			want, wantErr := slow.decode(line)
			if (gotErr == nil) != (wantErr == nil) || errors.Is(gotErr, errNoValue) != errors.Is(wantErr, errNoValue) {
				t.Fatalf("line %q:\nfast: %v\njson: %v", line, gotErr, wantErr)
			}
			if gotErr == nil && !sameDecoded(got, want) {
				t.Fatalf("line %q:\nfast: %+v\njson: %+v", line, got, want)
			}
			// As Dir.Open reads a file: the line where it stands in the
			// rest of the file.
			if e, n, ok := inPlace.next(rest); ok && (n != len(line) || wantErr != nil || !sameDecoded(e, want)) {
				t.Fatalf("line %q read in place: %d bytes, %+v\njson: %+v, %v", line, n, e, want, wantErr)
			}
			if !more {
				break
			}
			rest = tail
		}
	})
}

// TestFastDecoderTakesCanonicalLinesExactly checks that the lines the
// store writes take the exact-form path (else its speed-up is lost) once
// their type and source have been seen, and give the same events as
// encoding/json.
func TestFastDecoderTakesCanonicalLinesExactly(t *testing.T) {
	var d fastDecoder
	for round := range 2 {
		for i, line := range fastSeeds[:4] {
			exact := d.exact
			got, err := d.decode([]byte(line))
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			want, err := decodeLine([]byte(line))
			if err != nil || !sameDecoded(got, want) {
				t.Fatalf("line %q:\nfast: %+v\njson: %+v (%v)", line, got, want, err)
			}
			wantExact := round == 1 || !strings.Contains(line, `"source"`)
			if (d.exact > exact) != wantExact {
				t.Errorf("round %d, line %d: exact path %v, want %v", round, i, d.exact > exact, wantExact)
			}
		}
	}
}

func sameDecoded(a, b any) bool {
	return reflect.DeepEqual(a, b)
}

// TestFastDecoderCapsData checks that an event's data, a slice of the
// file's buffer, is capped, so that appending to it cannot overwrite the
// next line.
func TestFastDecoderCapsData(t *testing.T) {
	buf := []byte(fastSeeds[1] + "\n" + fastSeeds[0])
	var d fastDecoder
	e, err := d.decode(buf[:len(fastSeeds[1])])
	if err != nil || d.fast != 1 {
		t.Fatalf("decode = %v (fast %d)", err, d.fast)
	}
	if cap(e.Data) != len(e.Data) {
		t.Fatalf("data has cap %d > len %d", cap(e.Data), len(e.Data))
	}
	_ = append(e.Data, "XXXXXXXX"...)
	if string(buf[len(fastSeeds[1])+1:]) != fastSeeds[0] {
		t.Fatal("appending to an event's data changed the next line")
	}
}
