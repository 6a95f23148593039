package console

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// maxLineBytes bounds one input line.
const maxLineBytes = 1 << 20

// Event is one thing the user did: a line, Ctrl-C or the end of input.
type Event struct {
	Line      string
	Interrupt bool
	EOF       bool
	// At is when a typed line was completed (zero for a pipe), so that a
	// line typed before a question appeared does not answer it.
	At time.Time
}

// Source delivers input events and shows the prompt.
type Source interface {
	// Lines delivers the events; after an EOF event nothing more comes.
	Lines() <-chan Event
	// SetPrompt changes the prompt shown for the next line.
	SetPrompt(p string)
	// Close stops reading.
	Close() error
}

// Reader reads lines for the console. The prompt is not shown by the
// source (the console echoes it with each line). When the lines are typed
// (stdin is a terminal, stdout is not) each is stamped with the time it
// was read, so that a line typed before a question appeared does not
// answer it.
type Reader struct {
	ch    chan Event
	done  chan struct{}
	once  sync.Once
	typed bool
}

// NewReader starts reading r.
func NewReader(r io.Reader, typed bool) *Reader {
	s := &Reader{ch: make(chan Event), done: make(chan struct{}), typed: typed}
	go s.read(r)
	return s
}

func (s *Reader) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLineBytes)
	for sc.Scan() {
		ev := Event{Line: sc.Text()}
		if s.typed {
			ev.At = time.Now()
		}
		if !s.send(ev) {
			return
		}
	}
	s.send(Event{EOF: true})
}

func (s *Reader) send(ev Event) bool {
	select {
	case s.ch <- ev:
		return true
	case <-s.done:
		return false
	}
}

// Lines implements [Source].
func (s *Reader) Lines() <-chan Event { return s.ch }

// SetPrompt implements [Source]; the console echoes the prompt itself.
func (s *Reader) SetPrompt(string) {}

// Close implements [Source].
func (s *Reader) Close() error {
	s.once.Do(func() { close(s.done) })
	return nil
}

var _ Source = (*Reader)(nil)
