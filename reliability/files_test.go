package reliability_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/refhost/scripted"
	"github.com/dshgo/planmode/store"
)

// hostileIDs are session IDs a hostile or careless caller might pass to
// reach a file outside the sessions directory, or a device.
func hostileIDs() []string {
	return []string{
		"..", ".", "../outside", "../../etc/passwd", "..\\outside", "a/../../outside",
		"/etc/passwd", "/tmp/x", "C:\\Windows\\x", "C:x", "\\\\server\\share\\x",
		"outside/", "sub/dir", "a\x00b", "x.jsonl", ".hidden", "~", "~root",
		"-rf", "con", "NUL", "com1", "LPT9", "a b", "a\nb", "%2e%2e", "\u202eevil",
		"ａ", strings.Repeat("a", store.MaxIDLen+1),
	}
}

// treeOf lists every path under root, relative and sorted, with its mode.
func treeOf(t testing.TB, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, rel+" "+fi.Mode().String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// A session ID can never address a path outside the sessions directory: every
// hostile ID is refused by Create and Open of both stores with
// host.ErrBadSessionID, and nothing is created, opened or changed anywhere.
func TestHostileSessionIDs(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "sessions")
	d := openDir(t, dir)
	// Decoys a path-joining store would reach.
	for _, p := range []string{filepath.Join(root, "outside.jsonl"), filepath.Join(root, "passwd.jsonl")} {
		if err := os.WriteFile(p, []byte("decoy\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	before := treeOf(t, root)
	mem := store.NewMemory()
	for _, id := range hostileIDs() {
		t.Run(strings.ToValidUTF8(id, "?"), func(t *testing.T) {
			for _, st := range []host.Store{d, mem} {
				if _, err := st.Create(id); !errors.Is(err, host.ErrBadSessionID) {
					t.Errorf("%T.Create(%q) = %v, want ErrBadSessionID", st, id, err)
				}
				if _, err := st.Open(id); !errors.Is(err, host.ErrBadSessionID) {
					t.Errorf("%T.Open(%q) = %v, want ErrBadSessionID", st, id, err)
				}
			}
		})
	}
	if after := treeOf(t, root); !slices.Equal(before, after) {
		t.Errorf("hostile IDs changed the tree:\nbefore %q\nafter  %q", before, after)
	}
}

// A session file replaced by a symlink to a file outside the directory is
// never followed: opening it fails and the target is untouched.
func TestSymlinkedSessionFileIsRefused(t *testing.T) {
	root := t.TempDir()
	d := openDir(t, filepath.Join(root, "sessions"))
	target := filepath.Join(root, "target")
	if err := os.WriteFile(target, []byte("not a log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, d.Path("link")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	_, err := d.Open("link")
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Open(link) = %v, want a not-a-regular-file error", err)
	}
	if _, err := d.Create("link"); !errors.Is(err, host.ErrSessionExists) {
		t.Fatalf("Create(link) = %v, want ErrSessionExists", err)
	}
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "not a log\n" || fi.Mode().Perm() != 0o644 {
		t.Errorf("target changed: %q, mode %v", got, fi.Mode())
	}
}

// A whole session run by the host with plan mode (turns, a switch, a fork)
// leaves only 0600 files in 0700 directories, and a file found with a
// broader mode is tightened when it is opened.
func TestSessionFilesArePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes on Windows")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "state", "sessions")
	d, err := store.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := startHost(t, d, scripted.NewModel(scripted.Step{Text: "hi"}, scripted.Step{Text: "planning"}), nil)
	a := h.newAgent(t, "private")
	sess := a.Session()
	prompt(t, a, "hello")
	if _, err := h.ctl.Set(a, true); err != nil {
		t.Fatal(err)
	}
	prompt(t, a, "plan it")
	fork, err := sess.Fork(sess.Len())
	if err != nil {
		t.Fatal(err)
	}

	wantModes := func(t *testing.T) {
		t.Helper()
		for _, p := range []string{filepath.Join(root, "state"), dir} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("%s: mode %v (%v), want 0700", p, fi.Mode().Perm(), err)
			}
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			fi, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v, want a 0600 regular file", e.Name(), fi.Mode())
			}
			// An open session's owner record (who holds its lock) is
			// private too, and goes when the session is closed.
			if !strings.HasSuffix(e.Name(), store.FileExt+store.OwnerExt) {
				names = append(names, e.Name())
			}
		}
		if want := []string{"private" + store.FileExt, fork.ID() + store.FileExt}; !sameSet(names, want) {
			t.Errorf("sessions directory holds %q, want %q", names, want)
		}
	}
	wantModes(t)

	t.Run("a broad file mode is tightened on open", func(t *testing.T) {
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d.Path("private"), 0o666); err != nil {
			t.Fatal(err)
		}
		d2, err := store.OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = d2.Close() })
		if _, err := d2.Open("private"); err != nil {
			t.Fatal(err)
		}
		wantModes(t)
	})
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// sessionIDInputs are the hostile IDs of the bad-input table: each is
// refused by Create and Open of the durable store, which create nothing.
func sessionIDInputs() []badInput {
	const area = "session id"
	var out []badInput
	for _, id := range []string{"../outside", "/etc/passwd", "a/b", "..", "C:\\x", "nul", "a\x00b", strings.Repeat("a", store.MaxIDLen+1)} {
		give := strings.ReplaceAll(fmt.Sprintf("%q", id), strings.Repeat("a", store.MaxIDLen+1), fmt.Sprintf("a×%d", store.MaxIDLen+1))
		out = append(out, badInput{area, give, func(t *testing.T) error {
			root := t.TempDir()
			d := openDir(t, filepath.Join(root, "sessions"))
			before := treeOf(t, root)
			_, err := d.Create(id)
			if !errors.Is(err, host.ErrBadSessionID) {
				t.Errorf("Create(%q) = %v, want ErrBadSessionID", id, err)
			}
			if _, oerr := d.Open(id); !errors.Is(oerr, host.ErrBadSessionID) {
				t.Errorf("Open(%q) = %v, want ErrBadSessionID", id, oerr)
			}
			if after := treeOf(t, root); !slices.Equal(before, after) {
				t.Errorf("the tree changed: %q → %q", before, after)
			}
			return err
		}})
	}
	return out
}
