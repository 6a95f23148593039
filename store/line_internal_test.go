package store

import (
	"strings"
	"testing"
)

// TestLineDecoderKeepsItsCount checks that the reused json.Decoder and the
// byte count it is compared with stay in step across lines, whatever
// whitespace trails a value and however much of it the decoder read.
func TestLineDecoderKeepsItsCount(t *testing.T) {
	line := func(seq int, tail string) string {
		return `{"seq":` + string(rune('0'+seq)) + `,"type":"t","time":"2025-01-01T00:00:00Z","data":"` + strings.Repeat("x", 700*seq) + `"}` + tail
	}
	var d lineDecoder
	for i, give := range []string{
		line(1, strings.Repeat(" ", 5000)), line(2, ""), line(3, "\t\r "), line(4, strings.Repeat(" ", 3)),
	} {
		e, err := d.decode([]byte(give))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if e.Seq != uint64(i+1) {
			t.Fatalf("line %d: seq %d", i+1, e.Seq)
		}
		if off := d.dec.InputOffset(); off > d.fed || !strings.HasSuffix(give, " ") && off != d.fed {
			t.Fatalf("line %d: decoder at %d, fed %d", i+1, off, d.fed)
		}
	}
	if _, err := d.decode([]byte(line(5, " x"))); err == nil || !strings.Contains(err.Error(), "data after the JSON value") {
		t.Fatalf("junk after a value: %v", err)
	}
	// After an error the decoder starts afresh.
	if e, err := d.decode([]byte(line(6, ""))); err != nil || e.Seq != 6 {
		t.Fatalf("line after an error = %d, %v", e.Seq, err)
	}
}
