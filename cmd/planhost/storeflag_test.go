package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
)

// TestRunWithPostgresStore runs a session with -store URL and resumes it
// from the database with -store postgres and DATABASE_URL.
func TestRunWithPostgresStore(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv)
	dir := newRunDir(t)
	first := writeScript(t, dir, "first.yaml", "steps:\n  - text: Planning.\n")
	p, out, errOut, _ := testProgram(t, "/plan Think first\n")
	if code := p.main(runArgs(dir, first, "-store", url)); code != exitOK {
		t.Fatalf("exit code = %d\n%s", code, errOut)
	}
	id := regexp.MustCompile(`(?m)^session (\S+) \(PostgreSQL database postgres on `).FindStringSubmatch(out.String())
	if id == nil {
		t.Fatalf("no session line naming the database in:\n%s", out)
	}
	second := writeScript(t, dir, "second.yaml", "steps:\n  - text: Still planning.\n")
	p2, out2, errOut2, _ := testProgram(t, "And now?\n")
	p2.getenv = func(k string) string {
		if k == envDatabase {
			return url
		}
		return ""
	}
	if code := p2.main(runArgs(dir, second, "-store", storePostgres, "-session", id[1])); code != exitOK {
		t.Fatalf("resume: exit code = %d\n%s", code, errOut2)
	}
	if !strings.Contains(out2.String(), "resumed session "+id[1]) {
		t.Fatalf("resume output:\n%s", out2)
	}
}

func TestRunStoreUsageErrors(t *testing.T) {
	tests := []struct {
		name, store, want string
	}{
		{"unknown value", "mysql://x", `-store "mysql://x": want file, postgres or a postgres:// URL`},
		{"postgres without DATABASE_URL", "postgres", "-store postgres: DATABASE_URL is not set"},
		{"bad URL hides the password", "postgres://u:hunter2@host:port/db", "-store: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRunDir(t)
			script := writeScript(t, dir, "s.yaml", "steps:\n  - text: x\n")
			p, _, errOut, _ := testProgram(t, "")
			if code := p.main(runArgs(dir, script, "-store", tt.store)); code != exitUsage {
				t.Fatalf("exit code = %d, want %d\n%s", code, exitUsage, errOut)
			}
			if !strings.Contains(errOut.String(), tt.want) || strings.Contains(errOut.String(), "hunter2") {
				t.Fatalf("stderr = %q, want %q and no password", errOut, tt.want)
			}
		})
	}
}
