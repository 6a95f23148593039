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
	zero, fifo, sub := specialFiles(t, t.TempDir(), ".jsonl", "/dev/zero")
	for _, file := range []string{fifo, zero, sub} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			checkRefusedSpecial(t, file, func() {
				// Unblock a FIFO reader so the goroutine ends.
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
			}, "inspect", file)
		})
	}
}

// specialFiles makes in dir, with names ending in ext, a symbolic link to
// target, a FIFO and a directory. It skips the test where there are no
// FIFOs.
func specialFiles(t *testing.T, dir, ext, target string) (link, fifo, sub string) {
	t.Helper()
	link, fifo, sub = filepath.Join(dir, "link"+ext), filepath.Join(dir, "fifo"+ext), filepath.Join(dir, "sub"+ext)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	return link, fifo, sub
}

// checkRefusedSpecial runs planhost with args, which name the special file
// path: within 5 seconds it is a usage error naming path, with nothing on
// stdout. If it hangs, unblock lets it end.
func checkRefusedSpecial(t *testing.T, path string, unblock func(), args ...string) {
	t.Helper()
	p, out, errOut, _ := testProgram(t, "")
	done := make(chan int, 1)
	go func() { done <- p.main(args) }()
	select {
	case code := <-done:
		if code != exitUsage || !strings.Contains(errOut.String(), "not a regular file") || !strings.Contains(errOut.String(), path) {
			t.Errorf("exit %d, stderr %q; want a usage error naming %s", code, errOut, path)
		}
		if out.String() != "" {
			t.Errorf("stdout = %q", out)
		}
	case <-time.After(5 * time.Second):
		unblock()
		<-done
		t.Fatalf("planhost %q hangs", args)
	}
}

// TestInspectHTMLNeverOpensASpecialOutput protects what -html OUT names:
// a symbolic link there is neither followed nor replaced (its target keeps
// its content), a FIFO does not hang inspect, a directory is refused; each
// is a usage error naming OUT. A regular file there is replaced whole.
func TestInspectHTMLNeverOpensASpecialOutput(t *testing.T) {
	session := filepath.Join("testdata", "inspect", "demo.jsonl")
	dir := t.TempDir()
	target := filepath.Join(dir, "precious.txt")
	if err := os.WriteFile(target, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	link, fifo, sub := specialFiles(t, dir, ".html", target)
	for _, out := range []string{link, fifo, sub} {
		t.Run(filepath.Base(out), func(t *testing.T) {
			checkRefusedSpecial(t, out, func() {
				// Unblock a FIFO writer so the goroutine ends.
				if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
					time.Sleep(100 * time.Millisecond)
					f.Close()
				}
			}, "inspect", "-html", out, session)
		})
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "keep me" {
		t.Errorf("the link's target = %q, %v; want it untouched", b, err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link at OUT was replaced: %v, %v", info, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 4 {
		t.Errorf("the directory holds %v, %v; want no leftover temporary file", entries, err)
	}

	regular := filepath.Join(dir, "page.html")
	if err := os.WriteFile(regular, []byte(strings.Repeat("old ", 10000)), 0o600); err != nil {
		t.Fatal(err)
	}
	mustMain(t, exitOK, "", "inspect", "-html", regular, session)
	if b, err := os.ReadFile(regular); err != nil || !strings.HasPrefix(string(b), "<!DOCTYPE html>") || strings.Contains(string(b), "old old") {
		t.Errorf("page = %.40q…, %v; want the new page only", b, err)
	}
}
