package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/dshgo/planmode/internal/present"
)

// ttyConsole is "planhost run" on the line console with stdin on a
// terminal and stdout on a pipe (planhost run | tee log).
type ttyConsole struct {
	t    *testing.T
	ptmx *os.File
	out  syncBuffer
	done chan struct{}
}

// startTTYConsole runs the pty test script in dir's workspace.
func startTTYConsole(t *testing.T, dir, script string) *ttyConsole {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	c := &ttyConsole{t: t, ptmx: ptmx, done: make(chan struct{})}
	home := t.TempDir()
	cmd := exec.Command(builtBinary(t), ptyRunArgs(t, dir, filepath.Join("testdata", "pty", script))...)
	cmd.Env = terminalEnv(home)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &c.out, &c.out
	if err := cmd.Start(); err != nil {
		ptmx.Close()
		t.Fatal(err)
	}
	tty.Close()
	go io.Copy(io.Discard, ptmx) // the terminal's echo
	go func() {
		cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			cmd.Process.Kill()
			<-c.done
		}
		ptmx.Close()
	})
	return c
}

// write types s on the terminal.
func (c *ttyConsole) write(s string) {
	c.t.Helper()
	if _, err := c.ptmx.Write([]byte(s)); err != nil {
		c.t.Fatal(err)
	}
}

// quit types /quit and waits for planhost to exit.
func (c *ttyConsole) quit() {
	c.t.Helper()
	c.write("/quit\n")
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		c.t.Fatalf("planhost did not exit:\n%s", c.out.String())
	}
}

// TestPTYLineConsoleOnATerminalIgnoresTypeAhead runs the line console with
// stdin on a terminal and stdout on a pipe (planhost run | tee log): lines
// typed before the review was shown, or in the burst right after, never
// answer it (an empty one least of all); a line typed after a pause does.
func TestPTYLineConsoleOnATerminalIgnoresTypeAhead(t *testing.T) {
	dir := newRunDir(t)
	c := startTTYConsole(t, dir, "typing.yaml")
	// The chat line, then "a", an empty line and "a" at once: typed
	// before the review appeared and as it did.
	c.write("/plan Add Goodbye\na\n\na\n")
	waitFor(t, &c.out, present.English.Console.MenuEnd)
	time.Sleep(reviewGraceWait)
	checkNoExitResult(t, dir, "a line typed ahead")
	if !strings.Contains(c.out.String(), `ignored "a"`) {
		t.Errorf("no line says the typed-ahead answer was ignored:\n%s", c.out.String())
	}
	c.write("a\n") // read, then answered
	waitFor(t, &c.out, "Working on it.")
	c.quit()
	checkExitResult(t, dir, `"approved":true`)
}

// TestPTYLineConsoleEditOnATerminal edits a plan in the line console with
// stdin on a terminal: the plan's lines, pasted in one burst, are taken as
// the edit; the approval typed in the same burst is ignored (the menu comes
// back asleep); one typed after a pause approves the edit, which reaches
// the model.
func TestPTYLineConsoleEditOnATerminal(t *testing.T) {
	dir := newRunDir(t)
	c := startTTYConsole(t, dir, "typing.yaml")
	c.write("/plan Add Goodbye\n")
	waitFor(t, &c.out, present.English.Console.MenuEnd)
	time.Sleep(reviewGraceWait)
	c.write("e\n")
	waitFor(t, &c.out, present.English.Console.EditHow)
	c.write("# Add Goodbye\n\n1. Add `Goodbye` and `Farewell`.\n.\na\n")
	waitFor(t, &c.out, present.English.Review.DiffEdited)
	waitFor(t, &c.out, `ignored "a"`)
	checkNoExitResult(t, dir, "the approval typed with the edit")
	time.Sleep(reviewGraceWait)
	c.write("a\n")
	waitFor(t, &c.out, "Working on it.")
	c.quit()
	checkExitResult(t, dir, `"editedByUser":true`, "Farewell")
}
