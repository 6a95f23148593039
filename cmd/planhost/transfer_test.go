package main

import (
	"regexp"
	"strings"
	"testing"

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
