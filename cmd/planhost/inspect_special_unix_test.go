//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInspectRefusesSpecialFiles protects inspect from files that are not
// session files: a FIFO does not hang it, a link to /dev/zero does not
// fill the temporary directory, a directory is refused; each is a usage
// error naming the file.
func TestInspectRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	zero := filepath.Join(dir, "zero.jsonl")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub.jsonl")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{fifo, zero, sub} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			p, out, errOut, _ := testProgram(t, "")
			done := make(chan int, 1)
			go func() { done <- p.main([]string{"inspect", file}) }()
			select {
			case code := <-done:
				if code != exitUsage || !strings.Contains(errOut.String(), "not a regular file") || !strings.Contains(errOut.String(), file) {
					t.Errorf("exit %d, stderr %q; want a usage error naming %s", code, errOut, file)
				}
				if out.String() != "" {
					t.Errorf("stdout = %q", out)
				}
			case <-time.After(5 * time.Second):
				// Unblock a FIFO reader so the goroutine ends.
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
				<-done
				t.Fatal("inspect hangs")
			}
		})
	}
}
