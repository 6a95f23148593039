package store

import (
	"bytes"

	"github.com/dshgo/planmode/host"
)

// DecodeLine exposes the JSONL line decoder to the external tests.
var DecodeLine = decodeLine

// EncodeLine exposes the JSONL line encoder to the external tests; the
// result is a fresh slice ending in '\n'.
func EncodeLine(e host.Event) ([]byte, error) {
	var le lineEncoder
	b, err := le.encode(e)
	return bytes.Clone(b), err
}
