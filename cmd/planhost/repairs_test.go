package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRepairsAreShown protects the user from silent repairs: when the store
// cuts a torn last line, adds a missing final newline or tightens a file
// mode on opening a session, planhost run and inspect say so in one line
// naming the user's file.
func TestRepairsAreShown(t *testing.T) {
	dir := newRunDir(t)
	out, _ := mustMain(t, exitOK, "/plan\n/plan off\n", runArgs(dir, filepath.Join("testdata", "run", "script.yaml"))...)
	file := strings.TrimPrefix(regexp.MustCompile(`(?m)^session file: .*$`).FindString(out), "session file: ")
	id := strings.TrimSuffix(filepath.Base(file), ".jsonl")
	clean := readFile(t, file)
	torn := func(t *testing.T) {
		if err := os.WriteFile(file, append(append([]byte{}, clean...), `{"seq":99,"ty`...), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		setup func(t *testing.T)
		args  []string
		want  []string
	}{
		{"inspect: a torn tail", torn, []string{"inspect", file},
			[]string{"planhost inspect: repaired " + file + ": store: cut torn final line", "the file itself is unchanged"}},
		{"run: a torn tail", torn, runArgs(dir, filepath.Join("testdata", "run", "script.yaml"), "-session", id),
			[]string{"planhost run: repaired " + file + ": store: cut torn final line (line "}},
		{"run: a missing final newline", func(t *testing.T) {
			if err := os.WriteFile(file, clean[:len(clean)-1], 0o600); err != nil {
				t.Fatal(err)
			}
		}, runArgs(dir, filepath.Join("testdata", "run", "script.yaml"), "-session", id),
			[]string{"planhost run: repaired " + file + ": store: added missing final newline"}},
		{"run: a broad file mode", func(t *testing.T) {
			if err := os.WriteFile(file, clean, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(file, 0o644); err != nil {
				t.Fatal(err)
			}
		}, runArgs(dir, filepath.Join("testdata", "run", "script.yaml"), "-session", id),
			[]string{"planhost run: repaired " + file + ": store: tightened session file mode (mode 0644)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.setup(t)
			_, errOut := mustMain(t, exitOK, "", tt.args...)
			for _, want := range tt.want {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr = %q, want %q", errOut, want)
				}
			}
			if n := strings.Count(errOut, "repaired"); n != 1 {
				t.Errorf("%d repair lines, want 1:\n%s", n, errOut)
			}
		})
	}
}
