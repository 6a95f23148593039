package workspace_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const secret = "TOP SECRET outside the workspace"

// fixture lays out a workspace and a sibling "outside" directory with
// symbolic links that try to leave the workspace. It returns the workspace
// directory and the outside directory.
func fixture(t testing.TB) (dir, outside string) {
	t.Helper()
	base := t.TempDir()
	dir = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside")
	files := map[string]string{
		"ws/README.md":           "# Sample\n\nhello world\n",
		"ws/src/main.go":         "package main\n\nfunc main() { println(\"Hello\") }\n",
		"ws/src/util/strings.go": "package util\n\n// Upper upper-cases.\nfunc Upper(s string) string { return s }\n",
		"ws/bin.dat":             "ab\x00cd",
		"outside/secret.txt":     secret + "\n",
	}
	for name, body := range files {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"escape":  "../outside/secret.txt",
		"abs":     filepath.Join(outside, "secret.txt"),
		"dirlink": "../outside",
		"inlink":  "src/main.go",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir, outside
}

func open(t testing.TB, dir string, lim workspace.Limits) *workspace.Workspace {
	t.Helper()
	w, err := workspace.Open(dir, lim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func tool(t testing.TB, w *workspace.Workspace, name string) host.Tool {
	t.Helper()
	for _, tl := range w.Tools() {
		if tl.Definition().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

func call(t testing.TB, tl host.Tool, input string) (string, error) {
	t.Helper()
	return tl.Execute(context.Background(), host.CallContext{CallID: "c1"}, json.RawMessage(input))
}

// toolCase is one call of a tool and the answer it must give.
type toolCase struct {
	name    string
	lim     workspace.Limits
	give    string
	want    string
	wantErr string // a substring of the error
	wantIs  error  // when set, the error must match it with errors.Is
	// file and content are checked after a successful write.
	file, content string
}

// run calls the tool name of a workspace on dir with tt's limits and
// input, and checks its answer.
func (tt toolCase) run(t *testing.T, dir, name string) (string, error) {
	t.Helper()
	got, err := call(t, tool(t, open(t, dir, tt.lim), name), tt.give)
	if tt.wantErr != "" || tt.wantIs != nil {
		if err == nil {
			t.Fatalf("got result %q, want error %q", got, tt.wantErr)
		}
		if !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("error = %q, want it to contain %q", err, tt.wantErr)
		}
		if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
			t.Errorf("error = %v, want errors.Is %v", err, tt.wantIs)
		}
		return got, err
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got != tt.want {
		t.Errorf("result:\n%s\nwant:\n%s", got, tt.want)
	}
	return got, err
}

func TestCleanPath(t *testing.T) {
	tests := []struct {
		name   string
		give   string
		want   string
		wantIs error
	}{
		{name: "empty is the root", give: "", want: "."},
		{name: "dot is the root", give: ".", want: "."},
		{name: "plain file", give: "a.txt", want: "a.txt"},
		{name: "nested with dot and slashes", give: "./src//util/", want: "src/util"},
		{name: "absolute path is refused", give: "/etc/passwd", wantIs: workspace.ErrOutside},
		{name: "parent is refused", give: "..", wantIs: workspace.ErrOutside},
		{name: "parent prefix is refused", give: "../x", wantIs: workspace.ErrOutside},
		{name: "parent inside is refused", give: "a/../b", wantIs: workspace.ErrOutside},
		{name: "parent at the end is refused", give: "a/..", wantIs: workspace.ErrOutside},
		{name: "NUL byte is refused", give: "a\x00b", wantIs: workspace.ErrBadInput},
		{name: "dots in a name are fine", give: "a..b/...", want: "a..b/..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := workspace.CleanPath(tt.give)
			if tt.wantIs != nil {
				if !errors.Is(err, tt.wantIs) {
					t.Fatalf("CleanPath(%q) = %q, %v; want %v", tt.give, got, err, tt.wantIs)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("CleanPath(%q) = %q, %v; want %q", tt.give, got, err, tt.want)
			}
		})
	}
}

func TestListFiles(t *testing.T) {
	dir, _ := fixture(t)
	tests := []toolCase{
		{
			name: "the root lists one level",
			give: `{}`,
			want: "README.md\nabs@\nbin.dat\ndirlink@\nempty/\nescape@\ninlink@\nsrc/",
		},
		{
			name: "recursive lists everything below",
			give: `{"path": "src", "recursive": true}`,
			want: "src/main.go\nsrc/util/\nsrc/util/strings.go",
		},
		{
			name: "an empty directory says so",
			give: `{"path": "empty"}`,
			want: workspace.MsgNoEntries,
		},
		{
			name: "too many entries are truncated with a note",
			lim:  workspace.Limits{MaxEntries: 2},
			give: `{}`,
			want: "README.md\nabs@\n" + fmt.Sprintf(workspace.MsgListTruncated, 2),
		},
		{
			name: "output over the byte budget is truncated with a note",
			lim:  workspace.Limits{MaxOutputBytes: 15},
			give: `{}`,
			want: "README.md\nabs@\n" + fmt.Sprintf(workspace.MsgListTruncated, 2),
		},
		{name: "a file is not a directory", give: `{"path": "README.md"}`, wantErr: fmt.Sprintf(workspace.MsgNotDir, "README.md")},
		{name: "a missing directory", give: `{"path": "nope"}`, wantErr: fmt.Sprintf(workspace.MsgNotFound, "nope")},
		{name: "a link to a directory outside", give: `{"path": "dirlink"}`, wantIs: workspace.ErrOutside},
		{name: "an absolute path", give: `{"path": "/tmp"}`, wantIs: workspace.ErrOutside},
		{name: "a parent path", give: `{"path": "src/../.."}`, wantIs: workspace.ErrOutside},
		{name: "an unknown argument", give: `{"dir": "src"}`, wantErr: `unknown field "dir"`, wantIs: workspace.ErrBadInput},
		{name: "a wrong type", give: `{"recursive": "yes"}`, wantIs: workspace.ErrBadInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, dir, workspace.ListFilesName) })
	}
}

func TestReadFile(t *testing.T) {
	dir, outside := fixture(t)
	tests := []toolCase{
		{name: "a text file", give: `{"path": "README.md"}`, want: "# Sample\n\nhello world\n"},
		{name: "a nested file with a dot prefix", give: `{"path": "./src/util/strings.go"}`, want: "package util\n\n// Upper upper-cases.\nfunc Upper(s string) string { return s }\n"},
		{name: "a link that stays inside", give: `{"path": "inlink"}`, want: "package main\n\nfunc main() { println(\"Hello\") }\n"},
		{name: "a relative link leading outside", give: `{"path": "escape"}`, wantErr: "escape", wantIs: workspace.ErrOutside},
		{name: "an absolute link leading outside", give: `{"path": "abs"}`, wantIs: workspace.ErrOutside},
		{name: "a file under a directory link leading outside", give: `{"path": "dirlink/secret.txt"}`, wantIs: workspace.ErrOutside},
		{name: "a parent path", give: `{"path": "../outside/secret.txt"}`, wantIs: workspace.ErrOutside},
		{name: "an absolute path", give: fmt.Sprintf(`{"path": %q}`, filepath.Join(outside, "secret.txt")), wantIs: workspace.ErrOutside},
		{name: "a directory", give: `{"path": "src"}`, wantErr: fmt.Sprintf(workspace.MsgIsDir, "src")},
		{name: "the root", give: `{"path": "."}`, wantErr: fmt.Sprintf(workspace.MsgIsDir, ".")},
		{name: "a missing file", give: `{"path": "src/nope.go"}`, wantErr: fmt.Sprintf(workspace.MsgNotFound, "src/nope.go")},
		{
			name:    "a file over the read limit",
			lim:     workspace.Limits{MaxReadBytes: 10},
			give:    `{"path": "README.md"}`,
			wantErr: fmt.Sprintf(workspace.MsgReadLarge, "README.md", 22, 10),
			wantIs:  workspace.ErrTooLarge,
		},
		{name: "a binary file", give: `{"path": "bin.dat"}`, wantIs: workspace.ErrNotText},
		{name: "a missing path argument", give: `{}`, wantErr: fmt.Sprintf(workspace.MsgMissing, "path"), wantIs: workspace.ErrBadInput},
		{name: "malformed JSON", give: `{"path":`, wantIs: workspace.ErrBadInput},
		{name: "trailing data", give: `{"path": "README.md"} {}`, wantIs: workspace.ErrBadInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.run(t, dir, workspace.ReadFileName)
			// An error may echo the model's own input, never anything else
			// about where the workspace is.
			if err != nil && !strings.Contains(tt.give, filepath.Dir(dir)) && strings.Contains(err.Error(), filepath.Dir(dir)) {
				t.Errorf("error %q reveals the workspace's location on disk", err)
			}
		})
	}
}

func TestSearch(t *testing.T) {
	dir, _ := fixture(t)
	long := strings.Repeat("x", 50) + "needle" + strings.Repeat("é", 40)
	if err := os.WriteFile(filepath.Join(dir, "long.txt"), []byte(long+"\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []toolCase{
		{
			name: "a substring in a directory",
			give: `{"pattern": "package", "path": "src"}`,
			want: "src/main.go:1: package main\nsrc/util/strings.go:1: package util",
		},
		{
			name: "the whole workspace skips binary files and links",
			give: `{"pattern": "Hello"}`,
			want: "src/main.go:3: func main() { println(\"Hello\") }\n" + fmt.Sprintf(workspace.MsgSearchSkipped, 1, workspace.DefaultMaxSearchFileBytes),
		},
		{
			name: "a regular expression",
			give: `{"pattern": "^func \\w+\\(s", "regexp": true}`,
			want: "src/util/strings.go:4: func Upper(s string) string { return s }\n" + fmt.Sprintf(workspace.MsgSearchSkipped, 1, workspace.DefaultMaxSearchFileBytes),
		},
		{
			name: "ignoring case quotes the substring",
			give: `{"pattern": "UPPER(", "ignore_case": true, "path": "src/util/strings.go"}`,
			want: "src/util/strings.go:4: func Upper(s string) string { return s }",
		},
		{
			name: "no match",
			give: `{"pattern": "zebra", "path": "src"}`,
			want: fmt.Sprintf(workspace.MsgNoMatches, "zebra", "src"),
		},
		{
			name: "matches over the limit are truncated",
			lim:  workspace.Limits{MaxMatches: 1},
			give: `{"pattern": "package", "path": "src"}`,
			want: "src/main.go:1: package main\n" + fmt.Sprintf(workspace.MsgSearchTruncated, 1),
		},
		{
			name: "files over the search limit are skipped and counted",
			lim:  workspace.Limits{MaxSearchFileBytes: 30},
			give: `{"pattern": "package", "path": "src"}`,
			want: fmt.Sprintf(workspace.MsgNoMatches, "package", "src") + "\n" + fmt.Sprintf(workspace.MsgSearchSkipped, 2, 30),
		},
		{
			name: "long lines are clipped at a rune boundary",
			lim:  workspace.Limits{MaxLineBytes: 57},
			give: `{"pattern": "needle", "path": "long.txt"}`,
			want: "long.txt:1: " + strings.Repeat("x", 50) + "needle…",
		},
		{name: "an invalid regular expression", give: `{"pattern": "(", "regexp": true}`, wantErr: "missing closing )", wantIs: workspace.ErrBadInput},
		{name: "an empty pattern", give: `{"pattern": ""}`, wantIs: workspace.ErrBadInput},
		{name: "a missing pattern", give: `{"path": "src"}`, wantErr: fmt.Sprintf(workspace.MsgMissing, "pattern"), wantIs: workspace.ErrBadInput},
		{name: "a pattern over the limit", lim: workspace.Limits{MaxPatternBytes: 3}, give: `{"pattern": "abcd"}`, wantIs: workspace.ErrTooLarge},
		{name: "a link leading outside", give: `{"pattern": "SECRET", "path": "escape"}`, wantIs: workspace.ErrOutside},
		{name: "a directory link leading outside", give: `{"pattern": "SECRET", "path": "dirlink"}`, wantIs: workspace.ErrOutside},
		{name: "a parent path", give: `{"pattern": "SECRET", "path": ".."}`, wantIs: workspace.ErrOutside},
		{name: "a missing path", give: `{"pattern": "x", "path": "nope"}`, wantErr: fmt.Sprintf(workspace.MsgNotFound, "nope")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := tt.run(t, dir, workspace.SearchName)
			if strings.Contains(got, secret) {
				t.Errorf("search returned text from outside the workspace: %q", got)
			}
		})
	}
}

func TestSearchStopsWhenCancelled(t *testing.T) {
	dir, _ := fixture(t)
	w := open(t, dir, workspace.Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tool(t, w, workspace.SearchName).Execute(ctx, host.CallContext{}, json.RawMessage(`{"pattern": "x"}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

func TestWriteFile(t *testing.T) {
	tests := []toolCase{
		{
			name: "a new file in new directories",
			give: `{"path": "docs/new/NOTES.md", "content": "notes\n"}`,
			want: fmt.Sprintf(workspace.MsgCreated, "docs/new/NOTES.md", 6),
			file: "docs/new/NOTES.md", content: "notes\n",
		},
		{
			name: "an existing file is replaced",
			give: `{"path": "README.md", "content": "# New\n"}`,
			want: fmt.Sprintf(workspace.MsgWrote, 6, "README.md"),
			file: "README.md", content: "# New\n",
		},
		{
			name: "empty content is a write",
			give: `{"path": "src/main.go", "content": ""}`,
			want: fmt.Sprintf(workspace.MsgWrote, 0, "src/main.go"),
			file: "src/main.go", content: "",
		},
		{
			name:    "content over the write limit",
			lim:     workspace.Limits{MaxWriteBytes: 4},
			give:    `{"path": "a.txt", "content": "12345"}`,
			wantErr: fmt.Sprintf(workspace.MsgWriteLarge, 5, 4),
			wantIs:  workspace.ErrTooLarge,
		},
		{name: "a directory", give: `{"path": "src", "content": "x"}`, wantErr: fmt.Sprintf(workspace.MsgIsDir, "src")},
		{name: "the root", give: `{"path": "./", "content": "x"}`, wantIs: workspace.ErrBadInput},
		{name: "through a directory link leading outside", give: `{"path": "dirlink/planted.txt", "content": "x"}`, wantIs: workspace.ErrOutside},
		{name: "over a link leading outside", give: `{"path": "escape", "content": "x"}`, wantIs: workspace.ErrOutside},
		{name: "a parent path", give: `{"path": "../outside/planted.txt", "content": "x"}`, wantIs: workspace.ErrOutside},
		{name: "an absolute path", give: `{"path": "/tmp/planted.txt", "content": "x"}`, wantIs: workspace.ErrOutside},
		{name: "a missing content argument", give: `{"path": "a.txt"}`, wantErr: fmt.Sprintf(workspace.MsgMissing, "content"), wantIs: workspace.ErrBadInput},
		{name: "a missing path argument", give: `{"content": "x"}`, wantErr: fmt.Sprintf(workspace.MsgMissing, "path"), wantIs: workspace.ErrBadInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside := fixture(t)
			tt.run(t, dir, workspace.WriteFileName)
			if tt.file != "" {
				b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(tt.file)))
				if err != nil || string(b) != tt.content {
					t.Errorf("file %s = %q, %v; want %q", tt.file, b, err, tt.content)
				}
			}
			entries, err := os.ReadDir(outside)
			if err != nil || len(entries) != 1 {
				t.Errorf("outside directory changed: %v %v", entries, err)
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != secret+"\n" {
				t.Errorf("outside file changed: %q", b)
			}
			if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) != 0 {
				t.Errorf("temporary files left behind: %v", tmp)
			}
		})
	}
}

func TestWriteFileConcurrently(t *testing.T) {
	dir, _ := fixture(t)
	w := open(t, dir, workspace.Limits{})
	wf := tool(t, w, workspace.WriteFileName)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			in := fmt.Sprintf(`{"path": "out/f%d.txt", "content": "v%d"}`, i%4, i)
			if _, err := call(t, wf, in); err != nil {
				t.Errorf("write %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	for i := range 4 {
		b, err := os.ReadFile(filepath.Join(dir, "out", fmt.Sprintf("f%d.txt", i)))
		if err != nil || !strings.HasPrefix(string(b), "v") {
			t.Errorf("f%d.txt = %q, %v", i, b, err)
		}
	}
}

func TestDefinitions(t *testing.T) {
	dir, _ := fixture(t)
	w := open(t, dir, workspace.Limits{})
	var names []string
	for _, tl := range w.Tools() {
		def := tl.Definition()
		names = append(names, def.Name)
		var schema map[string]any
		if err := json.Unmarshal(def.InputSchema, &schema); err != nil {
			t.Errorf("%s: input schema is not JSON: %v", def.Name, err)
		}
		if schema["type"] != "object" || schema["additionalProperties"] != false {
			t.Errorf("%s: schema = %v, want a closed object", def.Name, schema)
		}
		if def.Description == "" {
			t.Errorf("%s: no description", def.Name)
		}
	}
	want := []string{workspace.ListFilesName, workspace.ReadFileName, workspace.SearchName, workspace.WriteFileName}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("Tools() = %v, want %v", names, want)
	}
	for _, tl := range w.ReadOnlyTools() {
		if tl.Definition().Name == workspace.WriteFileName {
			t.Errorf("ReadOnlyTools() has %s", workspace.WriteFileName)
		}
	}
}

func TestOpen(t *testing.T) {
	tests := []struct {
		name    string
		dir     string
		lim     workspace.Limits
		wantErr string
	}{
		{name: "a negative limit", dir: t.TempDir(), lim: workspace.Limits{MaxMatches: -1}, wantErr: "MaxMatches: -1 is negative"},
		{name: "a missing directory", dir: filepath.Join(t.TempDir(), "nope"), wantErr: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := workspace.Open(tt.dir, tt.lim)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Open error = %v, want %q", err, tt.wantErr)
			}
		})
	}
	w := open(t, t.TempDir(), workspace.Limits{MaxEntries: 7})
	if got := w.Limits(); got.MaxEntries != 7 || got.MaxReadBytes != workspace.DefaultMaxReadBytes {
		t.Errorf("Limits() = %+v, want MaxEntries 7 and default MaxReadBytes", got)
	}
}
