package store

import (
	"testing"
)

// BenchmarkFastDecoder decodes the two kinds of line that BenchmarkOpen's
// file holds, a user message with a source and an assistant message, one
// pair per op, with one decoder as a file's open does.
func BenchmarkFastDecoder(b *testing.B) {
	lines := [][]byte{
		[]byte(`{"seq":1,"type":"user/message","time":"2025-01-02T03:04:05Z","source":{"kind":"user"},"data":{"content":[{"type":"text","text":"please continue with the next step"}]}}`),
		[]byte(`{"seq":2,"type":"assistant/message","time":"2025-01-02T03:04:05.001001Z","data":{"text":"I will read the file and then summarise what the function does for you."}}`),
	}
	var d fastDecoder
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if _, err := d.decode(l); err != nil {
				b.Fatal(err)
			}
		}
	}
	if d.exact == 0 {
		b.Fatal("the exact-form path took no line")
	}
}
