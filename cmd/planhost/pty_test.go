package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// ptyBinary is the planhost binary the pty tests run, built once by
// buildPTYBinary.
var (
	ptyBinaryOnce sync.Once
	ptyBinary     string
	ptyBinaryErr  error
	ptyBinaryDir  string
)

// builtBinary builds planhost once per test run and returns its path.
func builtBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("pty tests build the binary; skipped with -short")
	}
	ptyBinaryOnce.Do(func() {
		ptyBinaryDir, ptyBinaryErr = os.MkdirTemp("", "planhost-pty-")
		if ptyBinaryErr != nil {
			return
		}
		ptyBinary = filepath.Join(ptyBinaryDir, "planhost")
		out, err := exec.Command("go", "build", "-o", ptyBinary, ".").CombinedOutput()
		if err != nil {
			ptyBinaryErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if ptyBinaryErr != nil {
		t.Fatal(ptyBinaryErr)
	}
	return ptyBinary
}

// ptySession is the built binary running in a pseudo-terminal.
type ptySession struct {
	t   *testing.T
	cmd *exec.Cmd
	tty *os.File
	mu  sync.Mutex
	out bytes.Buffer
	emu *vt.Emulator
	// readDone is closed when all the program's output was read.
	readDone chan struct{}
	// home is the HOME (and state directory parent) of the run.
	home string
	// emuMu guards emu's screen (its answers are read without it).
	emuMu sync.Mutex
	done  chan struct{}
	err   error
}

// ansiRE matches escape sequences, for assertions on the text shown.
var ansiRE = regexp.MustCompile(`\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78DEHM])`)

// startPTY runs planhost with args in a cols×rows terminal with env added
// to a minimal environment.
func startPTY(t *testing.T, cols, rows uint16, env []string, args ...string) *ptySession {
	t.Helper()
	return startPTYHome(t, cols, rows, t.TempDir(), env, args...)
}

// startPTYHome is startPTY with HOME (and the state under it) at home.
func startPTYHome(t *testing.T, cols, rows uint16, home string, env []string, args ...string) *ptySession {
	t.Helper()
	cmd := exec.Command(builtBinary(t), args...)
	cmd.Env = append(terminalEnv(home), env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: cols, Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	s := &ptySession{t: t, cmd: cmd, tty: tty, home: home, done: make(chan struct{}), emu: vt.NewEmulator(int(cols), int(rows))}
	// The emulator answers the program's queries (cursor position,
	// colours) through the terminal, as a real one does.
	go func() {
		buf := make([]byte, 256)
		for {
			n, err := s.emu.Read(buf)
			if n > 0 {
				tty.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	readDone := make(chan struct{})
	s.readDone = readDone
	go func() {
		defer close(readDone)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			s.emuMu.Lock()
			s.emu.Write(buf[:n])
			s.emuMu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			_ = cmd.Process.Kill()
			<-s.done
		}
		tty.Close()
		<-readDone
		// Ending the emulator's answer pipe ends the goroutine reading
		// it (Emulator.Close would race with that goroutine's Read).
		if c, ok := s.emu.InputPipe().(io.Closer); ok {
			c.Close()
		}
	})
	return s
}

// terminalEnv is the minimal environment of a run in a terminal, with
// HOME (and the state under it) at home.
func terminalEnv(home string) []string {
	return []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "TERM=xterm-256color", "PATH=" + os.Getenv("PATH")}
}

// raw is everything the program wrote so far.
func (s *ptySession) raw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// text is the output with escape sequences removed.
func (s *ptySession) text() string { return ansiRE.ReplaceAllString(s.raw(), "") }

// screen is the terminal's screen now, as text.
func (s *ptySession) screen() string {
	s.emuMu.Lock()
	defer s.emuMu.Unlock()
	return s.emu.String()
}

// waitScreen waits until the screen shows want.
func (s *ptySession) waitScreen(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(ptyWait)
	for time.Now().Before(deadline) {
		if sc := s.screen(); strings.Contains(sc, want) {
			return sc
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("timed out waiting for %q on the screen:\n%s", want, s.screen())
	return ""
}

// waitIdle waits until the status line shows no running turn.
func (s *ptySession) waitIdle() {
	s.t.Helper()
	deadline := time.Now().Add(ptyWait)
	for time.Now().Before(deadline) {
		if sc := s.screen(); strings.Contains(sc, "· /help") && !strings.Contains(sc, "esc cancel") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("the turn did not end:\n%s", s.screen())
}

// resize changes the terminal's size (the program gets SIGWINCH).
func (s *ptySession) resize(cols, rows uint16) {
	s.t.Helper()
	s.emuMu.Lock()
	s.emu.Resize(int(cols), int(rows))
	s.emuMu.Unlock()
	if err := pty.Setsize(s.tty, &pty.Winsize{Cols: cols, Rows: rows}); err != nil {
		s.t.Fatal(err)
	}
}

// send types keys.
func (s *ptySession) send(keys string) {
	s.t.Helper()
	if _, err := s.tty.Write([]byte(keys)); err != nil {
		s.t.Fatalf("write to pty: %v", err)
	}
}

// waitFor waits until the output shows want (escape sequences removed).
func (s *ptySession) waitFor(want string) {
	s.t.Helper()
	deadline := time.Now().Add(ptyWait)
	for time.Now().Before(deadline) {
		if strings.Contains(s.text(), want) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("timed out waiting for %q; screen so far:\n%s", want, s.text())
}

// waitExit waits for the process to end within d and returns its exit
// code; a hang fails the test.
func (s *ptySession) waitExit(d time.Duration) int {
	s.t.Helper()
	select {
	case <-s.done:
	case <-time.After(d):
		s.t.Fatalf("planhost did not exit within %s; output:\n%s", d, s.text())
	}
	// The last output may still be in the terminal: read it all.
	select {
	case <-s.readDone:
	case <-time.After(2 * time.Second):
		s.t.Fatal("the terminal's output did not end after the exit")
	}
	var ee *exec.ExitError
	if errors.As(s.err, &ee) {
		return ee.ExitCode()
	}
	if s.err != nil {
		s.t.Fatalf("wait: %v", s.err)
	}
	return 0
}

// ptyWait bounds each wait for the screen. It is generous because CI runs
// the race-enabled packages side by side on two cores; a real hang still
// fails, just later.
const ptyWait = 30 * time.Second
