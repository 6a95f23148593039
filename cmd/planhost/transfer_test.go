package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dshgo/planmode/cmd/planhost/internal/transfer"
	"github.com/dshgo/planmode/cmd/planhost/pgstore"
	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/store"
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

	out1, _ := mustMain(t, exitOK, "in postgres\n", runArgs(dir, script, "-store", url)...)
	inDB := sessionIDIn(t, out1)
	mustMain(t, exitOK, "in a file\n", runArgs(dir, script)...)

	out3, _ := mustMain(t, exitOK, "again\n", runArgs(dir, script, "-store", url, "-continue")...)
	if !strings.Contains(out3, "Resumed session "+inDB+" (") {
		t.Fatalf("-continue did not resume the database's session %s:\n%s", inDB, out3)
	}
}

// importFile loads the session file into the database at url through
// the store's own Import, for tests of what reads the database.
func importFile(t *testing.T, url, file string) string {
	t.Helper()
	id, events, _, err := transfer.Load("test", transfer.Source{Store: "file", Log: io.Discard}, file)
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
			fromFile, _ := mustMain(t, exitOK, "", append(append([]string{"inspect"}, flags...), file)...)
			var page []byte
			if len(flags) > 0 && flags[0] == "-html" {
				page = readFile(t, flags[1])
				os.Remove(flags[1])
			}
			fromDB, _ := mustMain(t, exitOK, "", append(append([]string{"inspect", "-store", url}, flags...), id)...)
			if fromDB != fromFile {
				t.Errorf("from the database:\n%s\nfrom the file:\n%s", fromDB, fromFile)
			}
			if page != nil && string(readFile(t, flags[1])) != string(page) {
				t.Errorf("the -html pages differ")
			}
		})
	}
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
			_, errOut := mustMain(t, exitUsage, "", tt.args...)
			if !strings.Contains(errOut, tt.want) || strings.Contains(errOut, "hunter2") {
				t.Errorf("stderr = %q, want %q", errOut, tt.want)
			}
		})
	}
}

// TestExportImportRoundTrip moves a session file into PostgreSQL and out
// again, and through a sessions directory: every trip gives back the
// file byte for byte, and inspect reads the same session everywhere.
func TestExportImportRoundTrip(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv)
	dir := t.TempDir()
	for _, name := range []string{"demo.jsonl", "pending.jsonl"} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join("testdata", "inspect", name)
			id := strings.TrimSuffix(name, ".jsonl")
			want := readFile(t, file)

			_, errOut := mustMain(t, exitOK, "", "import", "-store", url, file)
			if !strings.Contains(errOut, "stored as session "+id+" in PostgreSQL database") {
				t.Errorf("import said %q", errOut)
			}
			out2, _ := mustMain(t, exitOK, "", "export", "-store", url, id)
			if out2 != string(want) {
				t.Fatalf("file → PostgreSQL → file changed the session:\n%s\nwant\n%s", out2, want)
			}

			sessions := filepath.Join(dir, "sessions")
			mustMain(t, exitOK, "", "import", "-sessions", sessions, file)
			out := filepath.Join(dir, id+".jsonl")
			mustMain(t, exitOK, "", "export", "-o", out, filepath.Join(sessions, name))
			if got := readFile(t, out); string(got) != string(want) {
				t.Fatalf("file → sessions directory → file changed the session:\n%s\nwant\n%s", got, want)
			}
			if got := readFile(t, filepath.Join(sessions, name)); string(got) != string(want) {
				t.Fatalf("the imported session file differs from its source")
			}
		})
	}
}

// TestImportRefusesBadInput: a line that is not the next event of a log,
// or that a store's append would refuse, fails the import with the file
// and line named, and no session is left in either store.
func TestImportRefusesBadInput(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv)
	const good = `{"seq":1,"type":"session/created","time":"2025-01-02T03:04:05Z"}` + "\n"
	line := func(seq int, rest string) string {
		return `{"seq":` + strconv.Itoa(seq) + `,"time":"2025-01-02T03:04:05Z",` + rest + "}\n"
	}
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	tests := []struct {
		name, content, want string
		onlyPostgres        bool
	}{
		{name: "bad JSON", content: good + "{\"seq\":2,\n", want: ":2: "},
		{name: "a gap in seq", content: good + line(3, `"type":"x/y"`), want: ":2: "},
		{name: "a duplicate name", content: good + line(2, `"type":"x/y","data":{"a":1,"a":2}`), want: ":2: "},
		{name: "data nested too deep", content: good + line(2, `"type":"x/y","data":`+deep), want: ":2: "},
		{name: "a bad plan-mode payload", content: good + line(2, `"type":"plan/mode","data":{"active":"yes"}`), want: `:2: `},
		{name: "a torn last line", content: good + `{"seq":2,"type":"x/y","ti`, want: ":2: the last line is incomplete"},
		{name: "a NUL in the type", content: good + line(2, `"type":"a\u0000b"`), want: ":2: ", onlyPostgres: true},
	}
	for _, tt := range tests {
		for _, target := range []string{"postgres", "file"} {
			if tt.onlyPostgres && target == "file" {
				continue
			}
			t.Run(tt.name+" into "+target, func(t *testing.T) {
				dir := t.TempDir()
				file := filepath.Join(dir, "bad.jsonl")
				if err := os.WriteFile(file, []byte(tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
				sessions := filepath.Join(dir, "sessions")
				args := []string{"import", "-sessions", sessions, file}
				if target == "postgres" {
					args = []string{"import", "-store", url, file}
				}
				_, errOut := mustMain(t, exitFailure, "", args...)
				if !strings.Contains(errOut, file+tt.want) {
					t.Errorf("stderr = %q, want %q", errOut, file+tt.want)
				}
				if target == "postgres" {
					p2, _, errOut2, _ := testProgram(t, "")
					if code := p2.main([]string{"inspect", "-store", url, "bad"}); code != exitUsage || !strings.Contains(errOut2.String(), "not found") {
						t.Errorf("after a refused import, inspect: exit %d, %q", code, errOut2)
					}
					return
				}
				entries, _ := os.ReadDir(sessions)
				if len(entries) != 0 {
					t.Errorf("the refused import left %v in the sessions directory", entries)
				}
			})
		}
	}
}

// TestImportExportArguments: what import and export refuse before they
// touch a store.
func TestImportExportArguments(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	if err := os.WriteFile(file, readFile(t, filepath.Join("testdata", "inspect", "pending.jsonl")), 0o600); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, readFile(t, file), 0o600); err != nil {
		t.Fatal(err)
	}
	sessions := filepath.Join(dir, "sessions")
	if err := os.Symlink(file, filepath.Join(dir, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"import without a file", []string{"import"}, exitUsage, "SESSION is required"},
		{"import of a missing file", []string{"import", "-sessions", sessions, dir + "/x.jsonl"}, exitUsage, "no such file"},
		{"import of a directory", []string{"import", "-sessions", sessions, "-session", "d", dir}, exitUsage, "not a regular file"},
		{"import of a name without .jsonl", []string{"import", "-sessions", sessions, notes}, exitUsage, "-session ID"},
		{"import under a bad ID", []string{"import", "-sessions", sessions, "-session", "../x", file}, exitUsage, "bad session id"},
		{"import to an unknown store", []string{"import", "-store", "mysql://x", file}, exitUsage, "want file, postgres"},
		{"import of a name without .jsonl, named", []string{"import", "-sessions", sessions, "-session", "notes", notes}, exitOK, "stored as session notes"},
		{"import of a session that exists", []string{"import", "-sessions", sessions, "-session", "notes", file}, exitUsage, "pass -replace"},
		{"import -replace", []string{"import", "-sessions", sessions, "-session", "notes", "-replace", file}, exitOK, "stored as session notes"},
		{"export without a session", []string{"export"}, exitUsage, "SESSION is required"},
		{"export of a bare ID", []string{"export", "s1"}, exitUsage, "-store postgres or -store URL"},
		{"export over an existing file", []string{"export", "-o", notes, file}, exitUsage, "pass -force"},
		{"export over a link", []string{"export", "-force", "-o", filepath.Join(dir, "link.jsonl"), file}, exitUsage, "not a regular file"},
		{"export over a directory", []string{"export", "-force", "-o", sessions, file}, exitUsage, "not a regular file"},
		{"export -force", []string{"export", "-force", "-o", notes, file}, exitOK, "written to " + notes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut := mustMain(t, tt.code, "", tt.args...)
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr = %q, want %q", errOut, tt.want)
			}
		})
	}
	if got := readFile(t, file); string(got) != string(readFile(t, filepath.Join("testdata", "inspect", "pending.jsonl"))) {
		t.Errorf("the link's target changed")
	}
}

// TestExportNeverWritesToATerminal: the real binary in a terminal refuses
// to print a session's raw log there, and names the way out.
func TestExportNeverWritesToATerminal(t *testing.T) {
	file, err := filepath.Abs(filepath.Join("testdata", "inspect", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := startPTY(t, 100, 30, nil, "export", file)
	if code := s.waitExit(10 * time.Second); code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s", code, exitUsage, s.text())
	}
	if out := s.text(); !strings.Contains(out, "stdout is a terminal: name a file with -o FILE") || strings.Contains(out, `"seq"`) {
		t.Fatalf("output:\n%s", out)
	}
}

// TestHelpListsTransferCommands: planhost -h lists export and import.
func TestHelpListsTransferCommands(t *testing.T) {
	out, _ := mustMain(t, exitOK, "", "-h")
	for _, want := range []string{"planhost inspect SESSION", "planhost export SESSION", "planhost import FILE.jsonl"} {
		if !strings.Contains(out, want) {
			t.Errorf("planhost -h does not list %q:\n%s", want, out)
		}
	}
}

// TestImportReplaceRefusesAHeldSession: -replace does not swap a session
// file that another store holds open; it names the holder.
func TestImportReplaceRefusesAHeldSession(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "sessions")
	file := filepath.Join("testdata", "inspect", "pending.jsonl")
	mustMain(t, exitOK, "", "import", "-sessions", sessions, file)
	held, err := store.OpenDir(sessions)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if _, err := held.Open("pending"); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, held.Path("pending"))
	_, errOut2 := mustMain(t, exitFailure, "", "import", "-sessions", sessions, "-replace", "-session", "pending", filepath.Join("testdata", "inspect", "demo.jsonl"))
	if want := fmt.Sprintf("busy on %s (pid %d)", hostname(t), os.Getpid()); !strings.Contains(errOut2, want) {
		t.Errorf("stderr = %q, want %q", errOut2, want)
	}
	if got := readFile(t, held.Path("pending")); string(got) != string(before) {
		t.Errorf("the held session was replaced")
	}
}

func hostname(t *testing.T) string {
	t.Helper()
	h, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	return h
}

// TestExportNamesItsRepair: a session file with a torn last line is
// exported without it, and the note names export and says the file
// itself is unchanged.
func TestExportNamesItsRepair(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "torn.jsonl")
	content := `{"seq":1,"type":"session/created","time":"2025-01-02T03:04:05Z"}` + "\n" + `{"seq":2,"ty`
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut := mustMain(t, exitOK, "", "export", file)
	if want := `{"seq":1,"type":"session/created","time":"2025-01-02T03:04:05Z"}` + "\n"; out != want {
		t.Errorf("export = %q, want %q", out, want)
	}
	if !strings.Contains(errOut, "planhost export: repaired "+file) || !strings.Contains(errOut, "in export's private copy only") {
		t.Errorf("stderr = %q", errOut)
	}
	if got := readFile(t, file); string(got) != content {
		t.Errorf("export changed the file")
	}
}

// TestImportReplaceRefusesALeasedSession: import -replace into PostgreSQL
// does not swap a session whose turn lease another process holds; it
// names the holder, as the file store does.
func TestImportReplaceRefusesALeasedSession(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := pgtest.NewDBOn(t, srv)
	file := filepath.Join("testdata", "inspect", "pending.jsonl")
	mustMain(t, exitOK, "", "import", "-store", url, file)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	held, err := pgstore.Open(ctx, url, pgstore.WithLeaseHolder("holder.example", 4242))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	s, err := held.Open("pending")
	if err != nil {
		t.Fatal(err)
	}
	lease, err := s.(host.TurnLeaser).LeaseTurn()
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	before, _ := mustMain(t, exitOK, "", "export", "-store", url, "pending")
	_, errOut := mustMain(t, exitFailure, "", "import", "-store", url, "-replace", "-session", "pending", filepath.Join("testdata", "inspect", "demo.jsonl"))
	// The refusal names the session once, with who holds it since when.
	want := regexp.MustCompile(`^planhost import: session "pending" busy on holder\.example \(pid 4242\) since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$`)
	if !want.MatchString(errOut) {
		t.Errorf("stderr = %q, want it to match %s", errOut, want)
	}
	if after, _ := mustMain(t, exitOK, "", "export", "-store", url, "pending"); after != before {
		t.Errorf("the leased session was replaced")
	}
}

// bigSessionFile writes a session file of n events to dir, one that takes
// an import a while to stage.
func bigSessionFile(t *testing.T, dir, name string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"seq":1,"type":"session/created","time":"2025-01-02T03:04:05Z"}` + "\n")
	for i := 2; i <= n; i++ {
		fmt.Fprintf(&b, `{"seq":%d,"type":"x/y","time":"2025-01-02T03:04:05Z","data":{"n":%d}}`+"\n", i, i)
	}
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// stagingDirs lists the staging directories in the sessions directory.
func stagingDirs(t *testing.T, sessions string) []string {
	t.Helper()
	entries, err := os.ReadDir(sessions)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".import-") {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs
}

// startImport runs the real binary's import of file into sessions and
// returns once it is staging, with the name of its staging directory
// (other than skip).
func startImport(t *testing.T, sessions, file, id, skip string) (*exec.Cmd, string) {
	t.Helper()
	return startMaking(t, nil, func() []string { return stagingDirs(t, sessions) }, skip, "import", "-sessions", sessions, "-session", id, file)
}

// startMaking runs the real binary with args and env added to the
// environment, and returns once dirs lists a directory other than skip,
// with its name.
func startMaking(t *testing.T, env []string, dirs func() []string, skip string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(builtBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		for _, d := range dirs() {
			if d != skip {
				return cmd, d
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("planhost %q never made its directory; stderr:\n%s", args, errOut.String())
	return nil, ""
}

// TestImportCleansUpAKilledImport: an import killed while it stages
// (SIGKILL) leaves its staging directory behind, and the next import
// removes it, but never the staging directory of an import that runs.
func TestImportCleansUpAKilledImport(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "sessions")
	big := bigSessionFile(t, dir, "big.jsonl", 300000)

	killed, stale := startImport(t, sessions, big, "killed", "")
	if err := killed.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	killed.Wait()
	if got := stagingDirs(t, sessions); !slices.Contains(got, stale) {
		t.Fatalf("after the kill, staging directories %v, want %s left behind", got, stale)
	}

	// The next import removes it; a third, while that one runs, leaves
	// the running import's alone.
	running, live := startImport(t, sessions, big, "running", stale)
	mustMain(t, exitOK, "", "import", "-sessions", sessions, "-session", "small", filepath.Join("testdata", "inspect", "pending.jsonl"))
	if err := running.Wait(); err != nil {
		t.Fatalf("the running import failed (its staging directory %s removed under it?): %v", live, err)
	}
	if got := stagingDirs(t, sessions); len(got) != 0 {
		t.Errorf("staging directories left: %v", got)
	}
	for _, id := range []string{"running", "small"} {
		if _, err := os.Stat(filepath.Join(sessions, id+store.FileExt)); err != nil {
			t.Errorf("session %s: %v", id, err)
		}
	}
	if _, err := os.Stat(filepath.Join(sessions, "killed"+store.FileExt)); err == nil {
		t.Errorf("the killed import stored its session")
	}
}

// TestRunCleansUpAKilledImport: planhost run on the sessions directory
// removes the staging directory an import killed there (SIGKILL) left
// behind, but not that of an import that runs.
func TestRunCleansUpAKilledImport(t *testing.T) {
	dir := newRunDir(t)
	sessions := filepath.Join(dir, "sessions")
	big := bigSessionFile(t, dir, "big.jsonl", 300000)
	killed, stale := startImport(t, sessions, big, "killed", "")
	if err := killed.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	killed.Wait()
	if got := stagingDirs(t, sessions); !slices.Contains(got, stale) {
		t.Fatalf("after the kill, staging directories %v, want %s left behind", got, stale)
	}

	script := writeScript(t, dir, "s.yaml", "steps:\n  - text: Noted.\n")
	mustMain(t, exitOK, "hello\n", runArgs(dir, script)...)
	if got := stagingDirs(t, sessions); len(got) != 0 {
		t.Errorf("after run, staging directories %v, want none", got)
	}

	running, live := startImport(t, sessions, big, "running", "")
	mustMain(t, exitOK, "hello\n", runArgs(dir, script)...)
	if err := running.Wait(); err != nil {
		t.Fatalf("the running import failed (its staging directory %s removed under it?): %v", live, err)
	}
	if _, err := os.Stat(filepath.Join(sessions, "running"+store.FileExt)); err != nil {
		t.Errorf("session running: %v", err)
	}
}

// privateDirs lists the private directories import, export and inspect
// keep in the temporary directory tmp.
func privateDirs(t *testing.T, tmp string) []string {
	t.Helper()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "planhost-") {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs
}

// startTransfer runs the real binary with args and the temporary
// directory tmp, and returns once it has made a private directory there
// (other than skip), with its name.
func startTransfer(t *testing.T, tmp, skip string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	return startMaking(t, []string{"TMPDIR=" + tmp}, func() []string { return privateDirs(t, tmp) }, skip, args...)
}

// TestTransferCleansUpAKilledCopy: import, export and inspect read a
// session file through a private copy in the temporary directory; one
// killed meanwhile (SIGKILL) leaves it behind, and the next import,
// export or inspect removes it, but never the copy of one that runs.
func TestTransferCleansUpAKilledCopy(t *testing.T) {
	dir := t.TempDir()
	big := bigSessionFile(t, dir, "big.jsonl", 300000)
	small := filepath.Join("testdata", "inspect", "pending.jsonl")
	args := map[string]func(file, id string) []string{
		"import": func(file, id string) []string {
			return []string{"import", "-sessions", filepath.Join(dir, "sessions"), "-session", id, file}
		},
		"export": func(file, id string) []string {
			return []string{"export", "-o", filepath.Join(dir, id+".out.jsonl"), file}
		},
		"inspect": func(file, _ string) []string { return []string{"inspect", file} },
	}
	tests := []struct{ name, other string }{
		{"import", "inspect"},
		{"export", "import"},
		{"inspect", "export"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			killed, stale := startTransfer(t, tmp, "", args[tt.name](big, tt.name+"-killed")...)
			if err := killed.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			killed.Wait()
			if got := privateDirs(t, tmp); !slices.Contains(got, stale) {
				t.Fatalf("after the kill, private directories %v, want %s left behind", got, stale)
			}

			// The next one removes it; another command, while that one
			// runs, leaves the running one's alone.
			running, live := startTransfer(t, tmp, stale, args[tt.name](big, tt.name+"-running")...)
			third := exec.Command(builtBinary(t), args[tt.other](small, tt.name+"-"+tt.other)...)
			third.Env = append(os.Environ(), "TMPDIR="+tmp)
			if out, err := third.CombinedOutput(); err != nil {
				t.Fatalf("planhost %s: %v\n%s", tt.other, err, out)
			}
			if err := running.Wait(); err != nil {
				t.Fatalf("the running %s failed (its private directory %s removed under it?): %v", tt.name, live, err)
			}
			if got := privateDirs(t, tmp); len(got) != 0 {
				t.Errorf("private directories left: %v", got)
			}
		})
	}
}
