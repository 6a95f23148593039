package main

import (
	"bufio"
	"errors"
	"io"
	"sync"

	"github.com/chzyer/readline"
)

// maxLineBytes bounds one input line read from a pipe.
const maxLineBytes = 1 << 20

// inputEvent is one thing the user did: a line, Ctrl-C or the end of input.
type inputEvent struct {
	line      string
	interrupt bool
	eof       bool
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

// pipeSource reads lines from a reader that is not a terminal. The prompt
// is not shown by the source (the console echoes it with each line).
type pipeSource struct {
	ch   chan inputEvent
	done chan struct{}
	once sync.Once
}

func newPipeSource(r io.Reader) *pipeSource {
	s := &pipeSource{ch: make(chan inputEvent), done: make(chan struct{})}
	go s.read(r)
	return s
}

func (s *pipeSource) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLineBytes)
	for sc.Scan() {
		if !s.send(inputEvent{line: sc.Text()}) {
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

// ttySource reads lines with line editing and history from a terminal.
type ttySource struct {
	rl *readline.Instance
	// stdin is the cancelable reader under readline; closing it ends the
	// read readline's own goroutine is blocked in, without which Close
	// waits for one more key press.
	stdin  io.Closer
	ch     chan inputEvent
	done   chan struct{}
	once   sync.Once
	prompt string
	mu     sync.Mutex
}

// newTTYSource starts reading from the terminal. history is the history
// file ("" for none).
func newTTYSource(stdin io.Reader, stdout, stderr io.Writer, history string) (*ttySource, error) {
	cancelable := readline.NewCancelableStdin(stdin)
	rl, err := readline.NewEx(&readline.Config{
		Prompt:          promptNoMode,
		HistoryFile:     history,
		InterruptPrompt: "^C",
		EOFPrompt:       cmdQuit,
		Stdin:           cancelable,
		Stdout:          stdout,
		Stderr:          stderr,
	})
	if err != nil {
		cancelable.Close()
		return nil, err
	}
	s := &ttySource{rl: rl, stdin: cancelable, ch: make(chan inputEvent), done: make(chan struct{})}
	go s.read()
	return s, nil
}

func (s *ttySource) read() {
	for {
		line, err := s.rl.Readline()
		var ev inputEvent
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			ev = inputEvent{interrupt: true}
		case err != nil:
			ev = inputEvent{eof: true}
		default:
			ev = inputEvent{line: line}
		}
		select {
		case s.ch <- ev:
		case <-s.done:
			return
		}
		if ev.eof {
			return
		}
	}
}

// Stdout is the writer that prints above the prompt line.
func (s *ttySource) Stdout() io.Writer { return s.rl.Stdout() }

func (s *ttySource) Lines() <-chan inputEvent { return s.ch }

func (s *ttySource) SetPrompt(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p == s.prompt {
		return
	}
	s.prompt = p
	s.rl.SetPrompt(p)
	s.rl.Refresh()
}

func (s *ttySource) Close() error {
	var err error
	s.once.Do(func() {
		close(s.done)
		s.stdin.Close()
		err = s.rl.Close()
	})
	return err
}

var (
	_ lineSource = (*pipeSource)(nil)
	_ lineSource = (*ttySource)(nil)
)
