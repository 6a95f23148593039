package main

import (
	"testing"
)

// FuzzDecodeRecord checks that any record text either decodes into a record
// with every field set or fails with an error, and that a decoded record
// survives encoding and decoding again.
func FuzzDecodeRecord(f *testing.F) {
	g := &generator{command: baseCommand}
	p := pair{dir: "docs", name: "plan-mode"}
	good, err := g.encodeRecord(p, translationRecord{
		English: recordSide{File: "plan-mode.md", Digest: "sha256:00"},
		Chinese: recordSide{File: "plan-mode.zh.md", Digest: "sha256:11"},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte("en: {file: a.md, digest: x}\nzh: {file: a.zh.md, digest: y}\n"))
	f.Add([]byte("en: [1, 2]\n"))
	f.Add([]byte(""))
	f.Add([]byte("en:\n  file: &a x\n  digest: *a\nzh: {file: b, digest: c}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRecord(b)
		if err != nil {
			return
		}
		if r.English.File == "" || r.English.Digest == "" || r.Chinese.File == "" || r.Chinese.Digest == "" {
			t.Fatalf("decoded a record with an empty field: %+v", r)
		}
		again, err := g.encodeRecord(p, r)
		if err != nil {
			t.Fatalf("encoding a decoded record: %v", err)
		}
		r2, err := decodeRecord(again)
		if err != nil || r2 != r {
			t.Fatalf("round trip: %+v -> %+v (%v)", r, r2, err)
		}
	})
}
