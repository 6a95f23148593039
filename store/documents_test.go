package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/store"
)

func TestMemoryDocuments(t *testing.T) {
	hosttest.TestDocuments(t, func(testing.TB) host.Documents { return store.NewMemoryDocuments() })
}

func TestDirDocuments(t *testing.T) {
	hosttest.TestDocuments(t, func(t testing.TB) host.Documents { return openDocs(t, docsDir(t)) })
}

// docsDir returns a fresh path for a documents directory (t.TempDir
// itself follows the umask).
func docsDir(t testing.TB) string { return filepath.Join(t.TempDir(), "docs") }

func openDocs(t testing.TB, dir string) *store.DirDocuments {
	t.Helper()
	d, err := store.OpenDirDocuments(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDirDocumentsSurviveReopening(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "docs")
	ctx := context.Background()
	if _, err := openDocs(t, dir).Put(ctx, "agent", "todo", []byte("list"), 0); err != nil {
		t.Fatal(err)
	}
	got, err := openDocs(t, dir).Get(ctx, "agent", "todo")
	if err != nil || string(got.Data) != "list" || got.Version != 1 {
		t.Fatalf("after reopening: %q at version %d, %v", got.Data, got.Version, err)
	}
}

func TestDirDocumentsFileModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits on windows")
	}
	dir := filepath.Join(t.TempDir(), "docs")
	d := openDocs(t, dir)
	if _, err := d.Put(context.Background(), "Agent/1", "todo", []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	path := d.DocumentPath("Agent/1", "todo")
	if !strings.HasPrefix(path, dir+string(filepath.Separator)) || strings.Contains(path[len(dir):], "Agent/1") {
		t.Fatalf("document path %s is not an encoded path inside %s", path, dir)
	}
	for _, c := range []struct {
		path string
		want os.FileMode
	}{{dir, 0o700}, {filepath.Dir(path), 0o700}, {path, 0o600}} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != c.want {
			t.Errorf("%s has mode %#o, want %#o", c.path, got, c.want)
		}
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestDirDocumentsRefuseAnOpenDirectory(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits on windows")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := store.OpenDirDocuments(dir); !errors.Is(err, store.ErrInsecureDir) {
		t.Fatalf("OpenDirDocuments on a 0755 directory: %v, want ErrInsecureDir", err)
	}
}

func TestDirDocumentsReportACorruptFile(t *testing.T) {
	d := openDocs(t, docsDir(t))
	ctx := context.Background()
	if _, err := d.Put(ctx, "agent", "todo", []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.DocumentPath("agent", "todo"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Get(ctx, "agent", "todo"); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("Get of a corrupt document: %v, want ErrCorrupt", err)
	}
	if _, err := d.Put(ctx, "agent", "todo", []byte("y"), 1); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("Put over a corrupt document: %v, want ErrCorrupt", err)
	}
}

// Two stores over one directory stand for two processes within this one:
// their flocks are taken through separate open files.
func TestDirDocumentsCompareAndSwapAcrossStores(t *testing.T) {
	dir := docsDir(t)
	a, b := openDocs(t, dir), openDocs(t, dir)
	ctx := context.Background()
	done := make(chan error, 2)
	for i, d := range []*store.DirDocuments{a, b} {
		go func() {
			for j := range 20 {
				if err := addLine(ctx, d, fmt.Sprintf("s%d-%d", i, j)); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	got, err := a.Get(ctx, "agent", "todo")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(string(got.Data))); n != 40 || got.Version != 40 {
		t.Fatalf("two stores made 40 updates; the document has %d lines at version %d", n, got.Version)
	}
}

// envDocsChild makes the test binary a writer process for
// TestDirDocumentsCompareAndSwapAcrossProcesses.
const envDocsChild = "PLANMODE_DOCS_CHILD_DIR"

func TestDirDocumentsCompareAndSwapAcrossProcesses(t *testing.T) {
	if dir := os.Getenv(envDocsChild); dir != "" {
		d := openDocs(t, dir)
		for j := range 20 {
			if err := addLine(context.Background(), d, fmt.Sprintf("p%d-%d", os.Getpid(), j)); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("no test binary to run: %v", err)
	}
	dir := docsDir(t)
	const procs = 3
	cmds := make([]*exec.Cmd, procs)
	for i := range cmds {
		cmds[i] = exec.Command(exe, "-test.run=^TestDirDocumentsCompareAndSwapAcrossProcesses$")
		cmds[i].Env = append(os.Environ(), envDocsChild+"="+dir)
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer process: %v", err)
		}
	}
	got, err := openDocs(t, dir).Get(context.Background(), "agent", "todo")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(string(got.Data))); n != procs*20 || got.Version != procs*20 {
		t.Fatalf("%d processes made %d updates; the document has %d lines at version %d",
			procs, procs*20, n, got.Version)
	}
}

// addLine appends line to agent's "todo" document with a CAS retry loop.
func addLine(ctx context.Context, d host.Documents, line string) error {
	for {
		doc, err := d.Get(ctx, "agent", "todo")
		if err != nil && !errors.Is(err, host.ErrDocumentNotFound) {
			return err
		}
		_, err = d.Put(ctx, "agent", "todo", append(doc.Data, line+"\n"...), doc.Version)
		if !errors.Is(err, host.ErrVersionConflict) {
			return err
		}
	}
}

func BenchmarkDirDocumentsPut(b *testing.B) {
	d := openDocs(b, docsDir(b))
	ctx := context.Background()
	data := []byte(strconv.Quote(strings.Repeat("item ", 200)))
	var v int64
	b.ReportAllocs()
	for b.Loop() {
		doc, err := d.Put(ctx, "agent", "todo", data, v)
		if err != nil {
			b.Fatal(err)
		}
		v = doc.Version
	}
}
