package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dshgo/planmode/cmd/planhost/internal/wiring"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
)

// TestRunWithPostgresStore runs a session with -store URL and resumes it
// from the database with -store postgres and DATABASE_URL.
func TestRunWithPostgresStore(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv)
	dir := newRunDir(t)
	first := writeScript(t, dir, "first.yaml", "steps:\n  - text: Planning.\n")
	out, _ := mustMain(t, exitOK, "/plan Think first\n", runArgs(dir, first, "-store", url)...)
	id := regexp.MustCompile(`(?m)^session (\S+) \(PostgreSQL database postgres on `).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("no session line naming the database in:\n%s", out)
	}
	second := writeScript(t, dir, "second.yaml", "steps:\n  - text: Still planning.\n")
	out2, _ := mustMainEnv(t, map[string]string{"DATABASE_URL": url}, exitOK, "And now?\n", runArgs(dir, second, "-store", "postgres", "-session", id[1])...)
	if !strings.Contains(out2, "Resumed session "+id[1]) {
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
			_, errOut := mustMain(t, exitUsage, "", runArgs(dir, script, "-store", tt.store)...)
			if !strings.Contains(errOut, tt.want) || strings.Contains(errOut, "hunter2") {
				t.Fatalf("stderr = %q, want %q and no password", errOut, tt.want)
			}
		})
	}
}

// TestUnknownStoreValueNeverShowsItsPassword: a -store value that is not
// taken is named in the usage error with every password masked, however
// the connection string is spelled.
func TestUnknownStoreValueNeverShowsItsPassword(t *testing.T) {
	tests := []struct {
		name, store, want string
	}{
		{"upper-case scheme", "POSTGRES://u:hunter2@h/db", `"POSTGRES://u:xxxxx@h/db"`},
		{"mixed-case postgresql", "PostgreSQL://u:hunter2@h/db", `"PostgreSQL://u:xxxxx@h/db"`},
		{"leading space", " postgres://u:hunter2@h/db", `" postgres://u:xxxxx@h/db"`},
		{"leading tab", "\tpostgres://u:hunter2@h/db", `"\tpostgres://u:xxxxx@h/db"`},
		{"postgresql: without slashes", "postgresql:u:hunter2@h/db", `"postgresql:u:xxxxx@h/db"`},
		{"postgresql: one slash", "postgresql:/u:hunter2@h/db", `"postgresql:/u:xxxxx@h/db"`},
		{"query password", "POSTGRES://h/db?sslmode=disable&password=hunter2", `password=xxxxx`},
		{"encoded query key", "Postgres://h/db?pass%77ord=hunter2", `pass%77ord=xxxxx`},
		{"keyword/value", "host=h password=hunter2 dbname=db", `"host=h password=xxxxx dbname=db"`},
		{"keyword/value quoted", "host=h password='hunter2 x' dbname=db", `"host=h password=xxxxx dbname=db"`},
		{"keyword/value spaced", "host=h password = hunter2 dbname=db", `"host=h password = xxxxx dbname=db"`},
		{"keyword/value upper case", "host=h PASSWORD=hunter2", `"host=h PASSWORD=xxxxx"`},
		{"keyword/value escaped quote", `host=h password='hun\'ter2'`, `"host=h password=xxxxx"`},
		{"sslpassword", "host=h sslpassword=hunter2", `"host=h sslpassword=xxxxx"`},
		{"other scheme", "mysql://u:hunter2@h/db", `"mysql://u:xxxxxx@h/db"`},
		{"no password", "mysql://x", `"mysql://x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRunDir(t)
			script := writeScript(t, dir, "s.yaml", "steps:\n  - text: x\n")
			_, got := mustMain(t, exitUsage, "", runArgs(dir, script, "-store", tt.store)...)
			if !strings.Contains(got, "-store "+tt.want) && !strings.Contains(got, tt.want) {
				t.Errorf("stderr = %q, want %s", got, tt.want)
			}
			for _, secret := range []string{"hunter", "ter2"} {
				if strings.Contains(got, secret) {
					t.Errorf("stderr = %q shows the password", got)
					break
				}
			}
		})
	}
}

// TestACPWithPostgresStore: "planhost acp -store URL" opens the database
// (its schema is migrated) and serves until stdin ends.
func TestACPWithPostgresStore(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv)
	dir := t.TempDir()
	script := writeScript(t, dir, "s.yaml", "steps:\n  - text: x\n")
	mustMain(t, exitOK, "", "acp", "-model", "scripted:"+script, "-sessions", filepath.Join(dir, "sessions"), "-store", url)
	if n := countRows(t, url, "SELECT count(*) FROM planmode_migrations"); n == 0 {
		t.Fatalf("the acp run left no migrated schema: %d", n)
	}
	if _, errOut := mustMain(t, exitUsage, "", "acp", "-model", "scripted:"+script, "-sessions", dir, "-store", "mysql://x"); !strings.Contains(errOut, "-store") {
		t.Fatalf("acp -store mysql://x: stderr %q", errOut)
	}
}

// TestRunKeepsTheTodoListInPostgres: with a PostgreSQL -store the agent's
// todo list lives in the same database, so a second planhost process on it
// reads what the first wrote, with no documents directory at all.
func TestRunKeepsTheTodoListInPostgres(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv)
	if _, read := todoSessions(t, "kept in postgres", "-store", url); !strings.Contains(read, `"content":"kept in postgres"`) {
		t.Fatalf("session 2 did not read the list from the database:\n%s", read)
	}
	if n := countRows(t, url, "SELECT count(*) FROM planmode_documents WHERE agent_id = $1", defaultAgentID); n != 1 {
		t.Fatalf("documents of %s in the database: %d; want 1", defaultAgentID, n)
	}
}

// countRows runs a query that counts rows in the database at url.
func countRows(t *testing.T, url, query string, args ...any) int {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestDocumentsDirWithPostgresIsAUsageError: -documents names a directory
// only the file store uses; with a database it would silently be ignored.
func TestDocumentsDirWithPostgresIsAUsageError(t *testing.T) {
	for _, cmd := range []string{"run", "acp"} {
		t.Run(cmd, func(t *testing.T) {
			dir := newRunDir(t)
			script := writeScript(t, dir, "s.yaml", "steps:\n  - text: x\n")
			p, _, errOut, _ := testProgram(t, "")
			args := runArgs(dir, script, "-store", "postgres://u@127.0.0.1:1/db", "-documents", filepath.Join(dir, "docs"))
			if cmd == "acp" {
				args = []string{"acp", "-model", "scripted:" + script, "-sessions", filepath.Join(dir, "sessions"),
					"-store", "postgres://u@127.0.0.1:1/db", "-documents", filepath.Join(dir, "docs")}
			}
			if code := p.main(args); code != exitUsage || !strings.Contains(errOut.String(), "leave -documents out") {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
		})
	}
}

// FuzzRedactDSN: a password of letters and digits never survives
// redactDSN in any of the connection string shapes -store may be given.
func FuzzRedactDSN(f *testing.F) {
	f.Add("hunter2", "POSTGRES://")
	f.Add("s3cret", " postgresql:")
	f.Add("pw", "host=h ")
	f.Fuzz(func(t *testing.T, secret, prefix string) {
		// A secret of letters and digits with a digit, so that it is no
		// part of the shapes' own text.
		if len(secret) < 4 || strings.Trim(secret, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" ||
			!strings.ContainsAny(secret, "0123456789") || strings.Contains(prefix, secret) {
			return
		}
		for _, v := range []string{
			prefix + "u:" + secret + "@h/db",
			prefix + "h/db?password=" + secret,
			prefix + "password=" + secret,
			prefix + "password = '" + secret + "'",
			prefix + "PassWord=" + secret + " dbname=x",
		} {
			if got := wiring.RedactDSN(v); strings.Contains(got, secret) {
				t.Fatalf("wiring.RedactDSN(%q) = %q", v, got)
			}
		}
	})
}
