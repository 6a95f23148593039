// Package companiontest holds test scaffolding the companion plugins'
// tests share.
package companiontest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ConfigFixtures runs a subtest for each file matching glob (there must be
// at least one). A file is a deployment file, a line "---", then either
// "ok ..." or the exact error its loading gives. load loads the deployment
// and, when it loads, renders what the plugin decoded as that "ok ..." line.
func ConfigFixtures(t *testing.T, glob string, load func(deployment []byte) (ok string, err error)) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures %s: %v", glob, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			give, want, found := bytes.Cut(raw, []byte("---\n"))
			if !found {
				t.Fatal("no --- separator")
			}
			wantText := strings.TrimSpace(string(want))
			got, err := load(give)
			if strings.HasPrefix(wantText, "ok ") {
				if err != nil {
					t.Fatal(err)
				}
				if got != wantText {
					t.Fatalf("got %s, want %s", got, wantText)
				}
				return
			}
			if err == nil || err.Error() != wantText {
				t.Fatalf("error:\n%v\nwant:\n%s", err, wantText)
			}
		})
	}
}

// Golden compares got with the file testdata/golden/name, or first rewrites
// the file with got when update is set (the test's -update flag). pkg is
// the package's directory as go test takes it, e.g. "./todo", for the
// message that says how to rewrite the file.
func Golden(t *testing.T, update bool, pkg, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s differs (go test %s -run %s -update rewrites it):\ngot:\n%s\nwant:\n%s", path, pkg, t.Name(), got, want)
	}
}
