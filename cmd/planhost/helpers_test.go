package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
)

// absPath is p made absolute, for a binary that runs in another directory.
func absPath(t testing.TB, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// mkdir makes the directory name in parent and returns its path.
func mkdir(t testing.TB, parent, name string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// mustJSON is v in JSON.
func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readFile is the content of the file at path.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mustMain runs planhost in-process on stdin with args and an empty
// environment, fails the test unless it exits with want, and returns what
// it wrote to stdout and stderr.
func mustMain(t *testing.T, want int, stdin string, args ...string) (stdout, stderr string) {
	t.Helper()
	return mustMainEnv(t, nil, want, stdin, args...)
}

// mustMainEnv is mustMain with the environment env.
func mustMainEnv(t *testing.T, env map[string]string, want int, stdin string, args ...string) (stdout, stderr string) {
	t.Helper()
	p, out, errOut, _ := testProgram(t, stdin)
	p.getenv = func(k string) string { return env[k] }
	if code := p.main(args); code != want {
		t.Fatalf("planhost %q: exit code = %d, want %d\nstdout:\n%s\nstderr:\n%s", args, code, want, out, errOut)
	}
	return out.String(), errOut.String()
}

// openaiArgs are the flags of a piped "planhost run" with the deployment
// cfg, the OpenAI-compatible model of the environment, and the workspace
// and sessions under dir.
func openaiArgs(dir, cfg string, extra ...string) []string {
	return append([]string{
		"run", "-config", cfg, "-model", "openai",
		"-workspace", filepath.Join(dir, "ws"), "-sessions", filepath.Join(dir, "sessions"),
	}, extra...)
}

// readEvents reads the events of a session file.
func readEvents(t *testing.T, file string) []host.Event {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []host.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e host.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return events
}

// sessionFile is the one session file of a run in dir.
func sessionFile(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "sessions", "*.jsonl"))
	if err != nil || len(files) != 1 {
		t.Fatalf("session files = %v, %v", files, err)
	}
	return files[0]
}

// sessionEvents reads the session log of a run in dir.
func sessionEvents(t *testing.T, dir string) []host.Event {
	t.Helper()
	return readEvents(t, sessionFile(t, dir))
}

// checkInspectSays runs "planhost inspect" on the session of the run in
// dir and checks that it tells want.
func checkInspectSays(t *testing.T, dir, want string) {
	t.Helper()
	if out, _ := mustMain(t, exitOK, "", "inspect", sessionFile(t, dir)); !strings.Contains(out, want) {
		t.Errorf("inspect lacks %q:\n%s", want, out)
	}
}

// checkExitResult checks that the run in dir has one exit_plan_mode result,
// not an error, whose output holds each of wants.
func checkExitResult(t *testing.T, dir string, wants ...string) {
	t.Helper()
	res := exitResults(t, sessionEvents(t, dir))
	if len(res) != 1 || res[0].IsError {
		t.Errorf("exit results = %+v, want one success", res)
		return
	}
	for _, want := range wants {
		if !strings.Contains(res[0].Output, want) {
			t.Errorf("exit result %q lacks %q", res[0].Output, want)
		}
	}
}

// checkNoExitResult checks that nothing answered the review of the run in
// dir yet.
func checkNoExitResult(t *testing.T, dir, what string) {
	t.Helper()
	if res := exitResults(t, sessionEvents(t, dir)); len(res) != 0 {
		t.Fatalf("%s answered the review: %+v", what, res)
	}
}

// checkHas checks that text, which what names, holds each of wants.
func checkHas(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}
