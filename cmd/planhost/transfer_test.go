package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
)

// sessionIDIn returns the ID of the first "session ID (" line of out.
func sessionIDIn(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^session (\S+) \(`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no session line in:\n%s", out)
	}
	return m[1]
}

// TestContinueUsesTheStoreInUse: -continue with a PostgreSQL -store
// resumes the database's newest session, even when a session file in
// -sessions is newer; with an empty database it says so.
func TestContinueUsesTheStoreInUse(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv)
	dir := newRunDir(t)
	script := writeScript(t, dir, "s.yaml", "steps:\n  - text: Noted.\n")

	p0, _, errOut0, _ := testProgram(t, "")
	if code := p0.main(runArgs(dir, script, "-store", url, "-continue")); code != exitUsage ||
		!strings.Contains(errOut0.String(), "-continue: no session in PostgreSQL database") {
		t.Fatalf("-continue on an empty database: exit %d, stderr %q", code, errOut0)
	}

	p1, out1, errOut1, _ := testProgram(t, "in postgres\n")
	if code := p1.main(runArgs(dir, script, "-store", url)); code != exitOK {
		t.Fatalf("exit code = %d\n%s", code, errOut1)
	}
	inDB := sessionIDIn(t, out1.String())
	p2, _, errOut2, _ := testProgram(t, "in a file\n")
	if code := p2.main(runArgs(dir, script)); code != exitOK {
		t.Fatalf("exit code = %d\n%s", code, errOut2)
	}

	p3, out3, errOut3, _ := testProgram(t, "again\n")
	if code := p3.main(runArgs(dir, script, "-store", url, "-continue")); code != exitOK {
		t.Fatalf("-continue -store URL: exit code = %d\n%s", code, errOut3)
	}
	if !strings.Contains(out3.String(), "resumed session "+inDB+": ") {
		t.Fatalf("-continue did not resume the database's session %s:\n%s", inDB, out3)
	}
}

// importFile loads the session file into the database at url through
// the store's own Import, for tests of what reads the database.
func importFile(t *testing.T, url, file string) string {
	t.Helper()
	id, events, err := readSession(file, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := pgstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Import(id, events, false); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestInspectReadsPostgres: inspect -store URL ID prints what inspect of
// the session file prints, as text, as JSON and as the -html page.
func TestInspectReadsPostgres(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv)
	file := filepath.Join("testdata", "inspect", "demo.jsonl")
	id := importFile(t, url, file)
	dir := t.TempDir()
	for _, flags := range [][]string{nil, {"-json"}, {"-html", filepath.Join(dir, "page.html")}} {
		t.Run(strings.Join(append([]string{"inspect"}, flags...), " "), func(t *testing.T) {
			p, fromFile, errOut, _ := testProgram(t, "")
			if code := p.main(append(append([]string{"inspect"}, flags...), file)); code != exitOK {
				t.Fatalf("inspect FILE: exit %d\n%s", code, errOut)
			}
			var page []byte
			if len(flags) > 0 && flags[0] == "-html" {
				page = readFile(t, flags[1])
				os.Remove(flags[1])
			}
			p2, fromDB, errOut2, _ := testProgram(t, "")
			if code := p2.main(append(append([]string{"inspect", "-store", url}, flags...), id)); code != exitOK {
				t.Fatalf("inspect -store URL ID: exit %d\n%s", code, errOut2)
			}
			if fromDB.String() != fromFile.String() {
				t.Errorf("from the database:\n%s\nfrom the file:\n%s", fromDB, fromFile)
			}
			if page != nil && string(readFile(t, flags[1])) != string(page) {
				t.Errorf("the -html pages differ")
			}
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInspectStoreErrors: what is wrong with inspect's store and session
// arguments is a usage error that says what to give.
func TestInspectStoreErrors(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a bare ID without -store", []string{"inspect", "abc"}, "-store postgres or -store URL"},
		{"an unknown ID", []string{"inspect", "-store", url, "nobody"}, "session nobody not found in PostgreSQL database"},
		{"a bad ID", []string{"inspect", "-store", url, "../x"}, "bad session id"},
		{"an unknown store", []string{"inspect", "-store", "mysql://u:hunter2@h/db", "abc"}, `want file, postgres or a postgres:// URL`},
		{"postgres without DATABASE_URL", []string{"inspect", "-store", "postgres", "abc"}, "DATABASE_URL is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _, errOut, _ := testProgram(t, "")
			if code := p.main(tt.args); code != exitUsage {
				t.Fatalf("exit %d, want %d\n%s", code, exitUsage, errOut)
			}
			if !strings.Contains(errOut.String(), tt.want) || strings.Contains(errOut.String(), "hunter2") {
				t.Errorf("stderr = %q, want %q", errOut, tt.want)
			}
		})
	}
}
