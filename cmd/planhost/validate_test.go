package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fixtureSeparator divides a fixture's input from what is expected:
// "==== want exit N", then the expected output.
const fixtureSeparator = "==== want exit "

// TestValidate runs validate on every testdata/config/*.yaml fixture and
// compares the exit code and the output (stdout then stderr). A fixture
// with nothing after its separator line gets the output written by -update.
func TestValidate(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "config", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			data := readFile(t, file)
			input, rest, ok := strings.Cut(string(data), "\n"+fixtureSeparator)
			if !ok {
				t.Fatalf("no %q line", fixtureSeparator)
			}
			codeText, want, _ := strings.Cut(rest, "\n")
			wantCode, err := strconv.Atoi(strings.TrimSpace(codeText))
			if err != nil {
				t.Fatalf("separator: %v", err)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, name), []byte(input+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			p, out, errOut, _ := testProgram(t, "")
			code := p.main([]string{"validate", "-config", filepath.Join(dir, name)})
			got := strings.ReplaceAll(out.String()+errOut.String(), dir+string(filepath.Separator), "")
			if code != wantCode {
				t.Errorf("exit code = %d, want %d\n%s", code, wantCode, got)
			}
			if *update {
				rewriteFixture(t, file, input, wantCode, got)
				return
			}
			if got != want {
				t.Errorf("output:\n%s\nwant:\n%s", got, want)
			}
			if code != exitOK {
				checkErrorLines(t, name, got)
			}
		})
	}
}

// checkErrorLines checks that every line of a failed validation reads
// FILE:LINE:COL: ...
func checkErrorLines(t *testing.T, name, out string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "planhost validate: ")
		if !ok {
			t.Errorf("line %q does not start with planhost validate:", sc.Text())
			continue
		}
		parts := strings.SplitN(line, ":", 4)
		if len(parts) < 4 || parts[0] != name {
			t.Errorf("line %q is not FILE:LINE:COL: problem", sc.Text())
			continue
		}
		for _, n := range parts[1:3] {
			if _, err := strconv.Atoi(n); err != nil {
				t.Errorf("line %q: %q is not a number", sc.Text(), n)
			}
		}
	}
}

func rewriteFixture(t *testing.T, file, input string, code int, out string) {
	t.Helper()
	data := input + "\n" + fixtureSeparator + strconv.Itoa(code) + "\n" + out
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
