package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzCheckJSON checks that checkJSON calls a text malformed exactly when
// encoding/json does, so the refusals it adds (invalid UTF-8, duplicate
// keys, depth) are the only differences.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":[1,-2.5e+3,true,false,null,"x\u00e9\n"]}`, ` {"a" : 1 } `, `{"a":1,}`, `[1,]`,
		`01`, `-`, `1.`, `1e`, `"\x"`, "\"a\xffb\"", `{"a":1,"a":2}`, `{"\u0061":1,"a":2}`, `[[[[`, `"\ud800"`,
		"\"tab\there\"", `{"a":1}x`, `nul`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		naive := 0
		for naive < len(b) && plainByte[b[naive]] {
			naive++
		}
		if got := skipPlain(b, 0); got != naive {
			t.Fatalf("skipPlain(%q) = %d, want %d", b, got, naive)
		}
		err := checkJSON(b, maxLineDepth)
		var je *jsonError
		if err != nil && !errors.As(err, &je) {
			t.Fatalf("error %v is not a *jsonError", err)
		}
		if err != nil && je.Deep {
			return // encoding/json refuses the same depth, as a syntax error
		}
		malformed := err != nil && je.Syntax
		if valid := json.Valid(b); valid == malformed {
			t.Fatalf("json.Valid = %v, checkJSON = %v for %q", valid, err, b)
		}
		if err == nil {
			var v any
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("checkJSON accepted %q, json.Unmarshal: %v", b, err)
			}
		}
	})
}
