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

// TestPTYLineConsoleOnATerminalIgnoresTypeAhead runs the line console with
// stdin on a terminal and stdout on a pipe (planhost run | tee log): lines
// typed before the review was shown, or in the burst right after, never
// answer it (an empty one least of all); a line typed after a pause does.
func TestPTYLineConsoleOnATerminalIgnoresTypeAhead(t *testing.T) {
	dir := newRunDir(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	home := t.TempDir()
	cmd := exec.Command(builtBinary(t), ptyRunArgs(t, dir, filepath.Join("testdata", "pty", "typing.yaml"))...)
	cmd.Env = []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "TERM=xterm-256color", "PATH=" + os.Getenv("PATH")}
	var out syncBuffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	go io.Copy(io.Discard, ptmx) // the terminal's echo
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	defer func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			<-done
		}
	}()
	write := func(s string) {
		t.Helper()
		if _, err := ptmx.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	// The chat line, then "a", an empty line and "a" at once: typed
	// before the review appeared and as it did.
	write("/plan Add Goodbye\na\n\na\n")
	waitFor(t, &out, present.English.Console.MenuEnd)
	time.Sleep(reviewGraceWait)
	if res := exitResults(t, sessionEvents(t, dir)); len(res) != 0 {
		t.Fatalf("a line typed ahead answered the review: %+v\n%s", res, out.String())
	}
	if !strings.Contains(out.String(), `ignored "a"`) {
		t.Errorf("no line says the typed-ahead answer was ignored:\n%s", out.String())
	}
	write("a\n") // read, then answered
	waitFor(t, &out, "Working on it.")
	write("/quit\n")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("planhost did not exit:\n%s", out.String())
	}
	res := exitResults(t, sessionEvents(t, dir))
	if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Output, `"approved":true`) {
		t.Errorf("exit results = %+v\n%s", res, out.String())
	}
}

// TestPTYLineConsoleEditOnATerminal edits a plan in the line console with
// stdin on a terminal: the plan's lines, pasted in one burst, are taken as
// the edit; the approval typed in the same burst is ignored (the menu comes
// back asleep); one typed after a pause approves the edit, which reaches
// the model.
func TestPTYLineConsoleEditOnATerminal(t *testing.T) {
	dir := newRunDir(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	home := t.TempDir()
	cmd := exec.Command(builtBinary(t), ptyRunArgs(t, dir, filepath.Join("testdata", "pty", "typing.yaml"))...)
	cmd.Env = []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "TERM=xterm-256color", "PATH=" + os.Getenv("PATH")}
	var out syncBuffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	go io.Copy(io.Discard, ptmx) // the terminal's echo
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	defer func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			<-done
		}
	}()
	write := func(s string) {
		t.Helper()
		if _, err := ptmx.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	write("/plan Add Goodbye\n")
	waitFor(t, &out, present.English.Console.MenuEnd)
	time.Sleep(reviewGraceWait)
	write("e\n")
	waitFor(t, &out, present.English.Console.EditHow)
	write("# Add Goodbye\n\n1. Add `Goodbye` and `Farewell`.\n.\na\n")
	waitFor(t, &out, present.English.Review.DiffEdited)
	waitFor(t, &out, `ignored "a"`)
	if res := exitResults(t, sessionEvents(t, dir)); len(res) != 0 {
		t.Fatalf("the approval typed with the edit answered the review: %+v\n%s", res, out.String())
	}
	time.Sleep(reviewGraceWait)
	write("a\n")
	waitFor(t, &out, "Working on it.")
	write("/quit\n")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("planhost did not exit:\n%s", out.String())
	}
	res := exitResults(t, sessionEvents(t, dir))
	if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Output, `"editedByUser":true`) || !strings.Contains(res[0].Output, "Farewell") {
		t.Errorf("exit results = %+v\n%s", res, out.String())
	}
}
