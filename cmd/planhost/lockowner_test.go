//go:build linux || darwin

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSecondProcessIsToldWhoHoldsTheSession runs two planhost processes
// on one session file: the second is refused with the first's host, pid
// and start time; once the first is SIGKILLed, the session opens again.
func TestSecondProcessIsToldWhoHoldsTheSession(t *testing.T) {
	bin := builtBinary(t)
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	dir := newRunDir(t)
	script := writeScript(t, dir, "s.yaml", "steps:\n  - text: Noted.\n")
	env := []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}

	first := exec.Command(bin, runArgs(dir, script)...)
	first.Env = env
	stdin, err := first.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); first.Process.Kill(); first.Wait() })
	lines := bufio.NewScanner(stdout)
	var id string
	for lines.Scan() {
		if rest, ok := strings.CutPrefix(lines.Text(), "session "); ok {
			id, _, _ = strings.Cut(rest, " ")
			break
		}
	}
	if id == "" {
		t.Fatal("the first process printed no session line")
	}
	go func() {
		for lines.Scan() {
		}
	}()

	second := func() (string, error) {
		cmd := exec.Command(bin, runArgs(dir, script, "-session", id)...)
		cmd.Env = env
		var errOut bytes.Buffer
		cmd.Stdin, cmd.Stderr = strings.NewReader(""), &errOut
		err := cmd.Run()
		return errOut.String(), err
	}
	errOut, err := second()
	if err == nil {
		t.Fatalf("the second process opened a session the first holds:\n%s", errOut)
	}
	want := fmt.Sprintf("session file locked by another store: busy on %s (pid %d) since %d-", host, first.Process.Pid, time.Now().UTC().Year())
	if !strings.Contains(errOut, want) {
		t.Fatalf("stderr = %q\nwant it to say %q", errOut, want)
	}

	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	if errOut, err := second(); err != nil {
		t.Fatalf("after the holder was killed, the session does not open: %v\n%s", err, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "sessions", id+".jsonl.owner")); !os.IsNotExist(err) {
		t.Errorf("the owner record outlived the session that closed it: %v", err)
	}
}
