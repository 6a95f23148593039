package store

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/dshgo/planmode/host"
)

// replayChunk is about how many bytes of a file one goroutine decodes at a
// time when a session is opened: big enough that handing out chunks costs
// nothing next to decoding them, small enough that the cores share a file
// evenly. Tests make it small.
var replayChunk = 1 << 20

// lineChunk is a run of whole lines of a file, the lines with indexes
// first to end-1.
type lineChunk struct {
	text       []byte
	first, end int
	decoded    int   // lines first to decoded-1 were decoded
	err        error // why line decoded was not, or nil for a line too long or not reached
}

// decodeLines decodes the lines of buf (without their '\n') on up to
// GOMAXPROCS goroutines, each taking the next chunk of lines in file
// order and decoding it with its own lineDecoder. It returns one event
// slot per line and the chunks, which say how far each got: a chunk stops
// at its first line that fails or is longer than maxLine, and once one
// has stopped no new chunk is started (every chunk before it was started
// already, and a reader in file order stops there). It returns when every
// goroutine has.
func decodeLines(buf []byte, maxLine int) ([]host.Event, []lineChunk) {
	var chunks []lineChunk
	lines := 0
	for rest := buf; len(rest) > 0; {
		n := min(replayChunk, len(rest))
		if i := bytes.IndexByte(rest[n-1:], '\n'); i >= 0 {
			n += i
		} else {
			n = len(rest)
		}
		text := rest[:n]
		rest = rest[n:]
		count := bytes.Count(text, []byte{'\n'})
		if text[len(text)-1] != '\n' {
			count++ // the unterminated last line
		}
		chunks = append(chunks, lineChunk{text: text, first: lines, end: lines + count, decoded: lines})
		lines += count
	}
	events := make([]host.Event, lines)
	var (
		next    atomic.Int64
		stopped atomic.Bool
	)
	work := func() {
		var dec lineDecoder
		for !stopped.Load() {
			i := int(next.Add(1) - 1)
			if i >= len(chunks) {
				return
			}
			if !chunks[i].decode(&dec, events, maxLine) {
				stopped.Store(true)
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(chunks))
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return events, chunks
}

// decode decodes c's lines into their slots of events; false means it
// stopped at a line.
func (c *lineChunk) decode(dec *lineDecoder, events []host.Event, maxLine int) bool {
	for rest := c.text; len(rest) > 0; c.decoded++ {
		var body []byte
		body, rest, _ = bytes.Cut(rest, []byte{'\n'})
		if len(body) > maxLine {
			return false
		}
		e, err := dec.decode(body)
		if err != nil {
			c.err = err
			return false
		}
		events[c.decoded] = e
	}
	return true
}
