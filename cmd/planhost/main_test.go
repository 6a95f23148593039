package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pmezard/go-difflib/difflib"
	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestMain checks for leaked goroutines; regexp2's clock (started by
// glamour's code highlighting) stops on its own a while after its last use.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"))
}

// syncBuffer is a bytes.Buffer safe for a writer and a polling reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testProgram returns a program reading stdin, writing to buffers, with an
// empty environment, its temporary files under t.TempDir, no terminal, and
// Ctrl-C delivered through the returned channel.
func testProgram(t *testing.T, stdin string) (*program, *syncBuffer, *syncBuffer, chan os.Signal) {
	t.Helper()
	var out, errOut syncBuffer
	p := newProgram(strings.NewReader(stdin), &out, &errOut)
	p.getenv = func(string) string { return "" }
	p.tempDir = t.TempDir()
	p.terminal = func() bool { return false }
	sigs := make(chan os.Signal, 2)
	p.notifyInterrupt = func() (<-chan os.Signal, func()) { return sigs, func() {} }
	return p, &out, &errOut, sigs
}

// sessionLines matches the lines that name a session or its file, which
// hold a random ID and a temporary path.
var sessionLines = regexp.MustCompile(`(?m)^(session file: |会话文件：|session |Resumed session )\S+.*$`)

// mask replaces what differs between runs with placeholders.
func mask(s string) string {
	return sessionLines.ReplaceAllStringFunc(s, func(line string) string {
		switch {
		case strings.HasPrefix(line, "session file: "):
			return "session file: <FILE>"
		case strings.HasPrefix(line, "会话文件："):
			return "会话文件：<FILE>"
		case strings.HasPrefix(line, "Resumed session "):
			_, n, _ := strings.Cut(line, " (")
			return "Resumed session <ID> (" + n
		}
		return "session <ID> (<FILE>)"
	})
}

// readGolden returns testdata/name.
func readGolden(t *testing.T, name string) string {
	t.Helper()
	b := readFile(t, filepath.Join("testdata", name))
	return string(b)
}

// goldenFile compares got with testdata/name, or rewrites it with -update.
func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	checkGolden(t, filepath.Join("testdata", name), got)
}

// checkGolden compares got with the file at path, or rewrites it with
// -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	fix := fmt.Sprintf("go test ./cmd/planhost -run '%s' -update", t.Name())
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s writes it)", err, fix)
	}
	if got == string(want) {
		return
	}
	diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(want)), B: difflib.SplitLines(got),
		FromFile: path, ToFile: "got", Context: 3,
	})
	t.Errorf("output differs from %s (%s rewrites it):\n%s", path, fix, diff)
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{name: "no command", args: nil, wantCode: exitUsage, wantErr: "planhost: no command given"},
		{name: "an unknown command", args: []string{"serve"}, wantCode: exitUsage, wantErr: `planhost: unknown command "serve"`},
		{name: "help", args: []string{"help"}, wantCode: exitOK, wantOut: usageMain},
		{name: "-h", args: []string{"-h"}, wantCode: exitOK, wantOut: usageMain},
		{name: "demo -h", args: []string{"demo", "-h"}, wantCode: exitOK, wantOut: usageDemo},
		{name: "run -h", args: []string{"run", "-h"}, wantCode: exitOK, wantOut: usageRun},
		{name: "validate -h", args: []string{"validate", "-h"}, wantCode: exitOK, wantOut: usageValidate},
		{name: "inspect -h", args: []string{"inspect", "-h"}, wantCode: exitOK, wantOut: usageInspect},
		{name: "an unknown flag", args: []string{"inspect", "-yaml", "x.jsonl"}, wantCode: exitUsage, wantErr: "flag provided but not defined: -yaml"},
		{name: "demo with arguments", args: []string{"demo", "now"}, wantCode: exitUsage, wantErr: `planhost demo: unexpected arguments: ["now"]`},
		{name: "run without -config", args: []string{"run"}, wantCode: exitUsage, wantErr: "planhost run: -config FILE is required"},
		{name: "validate without -config", args: []string{"validate"}, wantCode: exitUsage, wantErr: "planhost validate: -config FILE is required"},
		{name: "inspect without a file", args: []string{"inspect"}, wantCode: exitUsage, wantErr: "planhost inspect: SESSION is required"},
		{name: "inspect with two files", args: []string{"inspect", "a.jsonl", "b.jsonl"}, wantCode: exitUsage, wantErr: "unexpected arguments"},
		{name: "inspect of a file that is not JSONL", args: []string{"inspect", "notes.txt"}, wantCode: exitUsage, wantErr: "not a session file"},
		{name: "inspect of a bad session ID", args: []string{"inspect", "bad.id.jsonl"}, wantCode: exitUsage, wantErr: "bad session id"},
		{name: "inspect of a missing file", args: []string{"inspect", "missing.jsonl"}, wantCode: exitFailure, wantErr: "no such file"},
		{name: "run with a bad model", args: []string{"run", "-config", "testdata/run/deploy.yaml", "-model", "gpt"}, wantCode: exitUsage, wantErr: `-model "gpt": want scripted:FILE or openai`},
		{name: "run with openai and no model name", args: []string{"run", "-config", "testdata/run/deploy.yaml"}, wantCode: exitUsage, wantErr: "model: empty; want a model name (OPENAI_MODEL)"},
		{name: "run with a missing script", args: []string{"run", "-config", "testdata/run/deploy.yaml", "-model", "scripted:nope.yaml"}, wantCode: exitUsage, wantErr: "-model scripted:nope.yaml"},
		{name: "run with a bad session ID", args: []string{"run", "-config", "testdata/run/deploy.yaml", "-session", "../x"}, wantCode: exitUsage, wantErr: "-session: "},
		{name: "run with a bad config", args: []string{"run", "-config", "testdata/run/bad-deploy.yaml"}, wantCode: exitUsage, wantErr: `testdata/run/bad-deploy.yaml:2:3: plugins: unknown plugin "plan-mod"`},
		{name: "validate with the file as an argument", args: []string{"validate", "deploy.yaml"}, wantCode: exitUsage, wantErr: "planhost validate -config deploy.yaml"},
		{name: "run with the file as an argument", args: []string{"run", "deploy.yaml"}, wantCode: exitUsage, wantErr: "planhost run -config deploy.yaml"},
		{name: "inspect with a flag after the file", args: []string{"inspect", "missing.jsonl", "-json"}, wantCode: exitFailure, wantErr: "planhost inspect: "},
		{name: "inspect with an unknown flag after the file", args: []string{"inspect", "x.jsonl", "-yaml"}, wantCode: exitUsage, wantErr: "flag provided but not defined: -yaml"},
		{name: "inspect with -- before a file named like a flag", args: []string{"inspect", "--", "-x.jsonl"}, wantCode: exitUsage, wantErr: "bad session id"},
		{name: "run -continue with -session", args: []string{"run", "-config", "testdata/run/deploy.yaml", "-continue", "-session", "abc"}, wantCode: exitUsage, wantErr: "planhost run: -continue and -session"},
		{name: "run -continue with no session", args: []string{"run", "-config", "testdata/run/deploy.yaml", "-model", "scripted:testdata/run/script.yaml", "-workspace", "testdata/run", "-continue", "-sessions", "testdata/nope"}, wantCode: exitUsage, wantErr: "planhost run: -continue: "},
		{name: "run with a missing workspace", args: []string{"run", "-config", "testdata/run/deploy.yaml", "-model", "scripted:testdata/run/script.yaml", "-workspace", "testdata/nope", "-sessions", "testdata/nope-sessions"}, wantCode: exitUsage, wantErr: "-workspace: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, out, errOut, _ := testProgram(t, "")
			code := p.main(tt.args)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out, errOut)
			}
			if tt.wantOut != "" && !strings.HasPrefix(out.String(), tt.wantOut) {
				t.Errorf("stdout = %q, want it to start with %q", out, tt.wantOut)
			}
			if !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", errOut, tt.wantErr)
			}
			// An error comes first and names the program (and the
			// subcommand when there is one); usage text may follow.
			if first, _, _ := strings.Cut(errOut.String(), "\n"); code != exitOK && !strings.HasPrefix(first, "planhost") {
				t.Errorf("stderr starts with %q, want planhost", first)
			}
		})
	}
}
