package workspace_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/workspace"
)

var pathSeeds = []string{
	"", ".", "a", "./a/b/", "..", "../x", "a/../../b", "/etc/passwd", "//x", `..\x`,
	"escape", "abs", "dirlink/secret.txt", "inlink", "src/../escape", "a\x00b", "src//util/./strings.go",
	"C:\\x", "~/x", "...", ".../x",
}

func FuzzCleanPath(f *testing.F) {
	for _, s := range pathSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := workspace.CleanPath(p)
		if err != nil {
			if !errors.Is(err, workspace.ErrOutside) && !errors.Is(err, workspace.ErrBadInput) {
				t.Fatalf("CleanPath(%q) error %v is neither ErrOutside nor ErrBadInput", p, err)
			}
			return
		}
		if !fs.ValidPath(got) {
			t.Fatalf("CleanPath(%q) = %q, not a valid fs path", p, got)
		}
		if got != "." && !filepath.IsLocal(got) {
			t.Fatalf("CleanPath(%q) = %q, not local", p, got)
		}
		if path.Clean(got) != got {
			t.Fatalf("CleanPath(%q) = %q, not clean", p, got)
		}
		if again, err := workspace.CleanPath(got); err != nil || again != got {
			t.Fatalf("CleanPath is not idempotent on %q: %q, %v", got, again, err)
		}
	})
}

// FuzzToolsStayInside calls read_file, search and write_file with any
// path and checks that nothing outside the workspace is read or written.
func FuzzToolsStayInside(f *testing.F) {
	for _, s := range pathSeeds {
		f.Add(s)
	}
	dir, outside := fixture(f)
	w, err := workspace.Open(dir, workspace.Limits{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { w.Close() })
	read, srch, write := tool(f, w, workspace.ReadFileName), tool(f, w, workspace.SearchName), tool(f, w, workspace.WriteFileName)
	f.Fuzz(func(t *testing.T, p string) {
		quoted, _ := json.Marshal(p)
		if out, err := call(t, read, `{"path": `+string(quoted)+`}`); err == nil && strings.Contains(out, secret) {
			t.Fatalf("read_file %q returned the outside secret", p)
		}
		if out, err := call(t, srch, `{"pattern": "SECRET", "path": `+string(quoted)+`}`); err == nil && strings.Contains(out, secret) {
			t.Fatalf("search %q returned the outside secret", p)
		}
		_, _ = call(t, write, `{"path": `+string(quoted)+`, "content": "planted"}`)
		entries, err := os.ReadDir(outside)
		if err != nil || len(entries) != 1 {
			t.Fatalf("write_file %q changed the outside directory: %v %v", p, entries, err)
		}
		if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != secret+"\n" {
			t.Fatalf("write_file %q changed the outside file", p)
		}
	})
}

// FuzzToolsSpareTheState calls every tool with any path on a workspace that
// holds a forbidden state directory, and checks that nothing in it is read,
// listed, searched or written.
func FuzzToolsSpareTheState(f *testing.F) {
	for _, s := range append(pathSeeds, "state", "state/sessions/s1.jsonl", "sneaky", "sneaky/s1.jsonl", "logfile",
		"src/deep/s1.jsonl", "src/deep/../sessions/x", "state/./sessions//s2.jsonl", "src/dangling") {
		f.Add(s)
	}
	dir, state := stateFixture(f)
	w, err := workspace.Open(dir, workspace.Limits{}, workspace.WithForbidden(state))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { w.Close() })
	tools := w.Tools()
	log := filepath.Join(state, "sessions", "s1.jsonl")
	f.Fuzz(func(t *testing.T, p string) {
		quoted, _ := json.Marshal(p)
		for _, tl := range tools {
			in := `{"path": ` + string(quoted) + `}`
			switch tl.Definition().Name {
			case workspace.SearchName:
				in = `{"pattern": "seq", "path": ` + string(quoted) + `}`
			case workspace.WriteFileName:
				in = `{"path": ` + string(quoted) + `, "content": "forged"}`
			case workspace.ListFilesName:
				in = `{"recursive": true, "path": ` + string(quoted) + `}`
			}
			// The log's content, or an entry listed under the state (the
			// fuzzer's own writes elsewhere may reuse its names).
			if out, err := call(t, tl, in); err == nil && (strings.Contains(out, `"seq":1`) || strings.Contains(out, "state/sessions/")) {
				t.Fatalf("%s %q reached the session log: %q", tl.Definition().Name, p, out)
			}
		}
		entries, err := os.ReadDir(filepath.Join(state, "sessions"))
		if err != nil || len(entries) != 1 {
			t.Fatalf("the tools changed the sessions directory with %q: %v %v", p, entries, err)
		}
		if b, _ := os.ReadFile(log); string(b) != sessionLine {
			t.Fatalf("the tools changed the session log with %q", p)
		}
	})
}
