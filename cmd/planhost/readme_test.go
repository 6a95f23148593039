package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeCommands returns the "go run ./cmd/planhost ..." lines of the sh
// code blocks of the README at path, as fields (comments cut off).
func readmeCommands(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds [][]string
	inSh := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "```"):
			inSh = !inSh && strings.TrimPrefix(line, "```") == "sh"
		case inSh:
			cmd, _, _ := strings.Cut(line, "#")
			fields := strings.Fields(cmd)
			for i, f := range fields {
				if f == "go" && i+2 < len(fields) && fields[i+1] == "run" && fields[i+2] == "./cmd/planhost" {
					cmds = append(cmds, fields[i:])
					break
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

// TestREADMEExamplesWork runs the planhost commands of both READMEs as
// written, from the repository's root: every -config file exists, every
// validate passes, and a run with a scripted model plays a plan review
// (without an API key). Runs against a real endpoint or PostgreSQL only
// have their files checked.
func TestREADMEExamplesWork(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var cmds [][]string
	for _, name := range []string{"README.md", "README.zh.md"} {
		cmds = append(cmds, readmeCommands(t, filepath.Join(root, name))...)
	}
	t.Chdir(root)
	ran := map[string]bool{}
	for _, fields := range cmds {
		args := fields[3:]
		if len(args) == 0 {
			continue
		}
		cmd := strings.Join(fields, " ")
		for i, a := range args {
			if a == "-config" && i+1 < len(args) {
				if _, err := os.Stat(args[i+1]); err != nil {
					t.Errorf("%s: %v", cmd, err)
				}
			}
		}
		scripted := strings.Contains(cmd, "-model scripted:")
		if (args[0] != "validate" && !(args[0] == "run" && scripted)) || ran[cmd] {
			continue
		}
		ran[cmd] = true
		t.Run(cmd, func(t *testing.T) {
			p, out, errOut, _ := testProgram(t, "/plan Add a Goodbye function\na\n")
			state := t.TempDir()
			p.getenv = func(k string) string {
				if k == "XDG_STATE_HOME" {
					return state
				}
				return ""
			}
			if code := p.main(args); code != exitOK {
				t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if args[0] == "run" && !strings.Contains(out.String(), "Plan approved") {
				t.Errorf("the scripted run approved no plan:\n%s", out)
			}
		})
	}
	for _, want := range []string{"validate -config examples/deploy.yaml", "validate -config examples/deploy-companions.yaml", "-model scripted:examples/script.yaml"} {
		found := false
		for c := range ran {
			found = found || strings.Contains(c, want)
		}
		if !found {
			t.Errorf("no README command has %q", want)
		}
	}
}
