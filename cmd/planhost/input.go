package main

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// maxLineBytes bounds one input line read from a pipe.
const maxLineBytes = 1 << 20

// inputEvent is one thing the user did: a line, Ctrl-C or the end of input.
type inputEvent struct {
	line      string
	interrupt bool
	eof       bool
	// at is when a terminal line was completed (zero for a pipe), so that
	// a line typed before a review appeared does not answer it.
	at time.Time
}

// lineSource delivers input events and shows the prompt.
type lineSource interface {
	// Lines delivers the events; after an eof event nothing more comes.
	Lines() <-chan inputEvent
	// SetPrompt changes the prompt shown for the next line.
	SetPrompt(p string)
	// Close stops reading.
	Close() error
}

// pipeSource reads lines from stdin for the line console. The prompt is
// not shown by the source (the console echoes it with each line). When
// stdin is a terminal (and stdout is not) the lines are typed: each is
// stamped with the time it was read, so that a line typed before a review
// appeared does not answer it.
type pipeSource struct {
	ch    chan inputEvent
	done  chan struct{}
	once  sync.Once
	typed bool
}

func newPipeSource(r io.Reader, typed bool) *pipeSource {
	s := &pipeSource{ch: make(chan inputEvent), done: make(chan struct{}), typed: typed}
	go s.read(r)
	return s
}

func (s *pipeSource) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLineBytes)
	for sc.Scan() {
		ev := inputEvent{line: sc.Text()}
		if s.typed {
			ev.at = time.Now()
		}
		if !s.send(ev) {
			return
		}
	}
	s.send(inputEvent{eof: true})
}

func (s *pipeSource) send(ev inputEvent) bool {
	select {
	case s.ch <- ev:
		return true
	case <-s.done:
		return false
	}
}

func (s *pipeSource) Lines() <-chan inputEvent { return s.ch }
func (s *pipeSource) SetPrompt(string)         {}
func (s *pipeSource) Close() error {
	s.once.Do(func() { close(s.done) })
	return nil
}

var _ lineSource = (*pipeSource)(nil)
