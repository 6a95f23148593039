//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package planfile_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/dshgo/planmode/planfile"
)

const sid = "s1"

func newStore(t *testing.T) *planfile.Store {
	t.Helper()
	s, err := planfile.NewStore(filepath.Join(t.TempDir(), "plans"), 4<<10)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustReplace(t *testing.T, s *planfile.Store, session, content string) {
	t.Helper()
	if err := s.Replace(context.Background(), session, content); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, s *planfile.Store, session string) planfile.Document {
	t.Helper()
	d, err := s.Read(context.Background(), session)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func sessionDir(s *planfile.Store, session string) string { return filepath.Dir(s.Path(session)) }

func TestReplaceThenReadRoundTripsWithPrivateModes(t *testing.T) {
	s := newStore(t)
	mustReplace(t, s, sid, "# Plan\n\nstep")
	if d := mustRead(t, s, sid); !d.Exists || d.Content != "# Plan\n\nstep" {
		t.Fatalf("read %+v", d)
	}
	di, err := os.Lstat(sessionDir(s, sid))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(s.Path(sid))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("modes dir %o file %o, want 700 and 600", di.Mode().Perm(), fi.Mode().Perm())
	}
	mustReplace(t, s, sid, "# Second")
	if d := mustRead(t, s, sid); d.Content != "# Second" {
		t.Fatalf("after second replace: %q", d.Content)
	}
}

func TestReadWithoutAFileReportsNoPlan(t *testing.T) {
	s := newStore(t)
	if d := mustRead(t, s, sid); d.Exists {
		t.Fatalf("read %+v, want no file", d)
	}
	if _, err := os.Stat(s.Dir()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a read created the store directory: %v", err)
	}
}

func TestSeedNeverTruncatesAnExistingPlan(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	created, err := s.Seed(ctx, sid)
	if err != nil || !created {
		t.Fatalf("first seed: %v %v", created, err)
	}
	mustReplace(t, s, sid, "# Kept")
	created, err = s.Seed(ctx, sid)
	if err != nil || created {
		t.Fatalf("second seed: %v %v", created, err)
	}
	if d := mustRead(t, s, sid); d.Content != "# Kept" {
		t.Fatalf("seed changed the plan to %q", d.Content)
	}
	fi, err := os.Lstat(s.Path(sid))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("seeded file: %v %v", fi, err)
	}
}

func TestUnsafeObjectsAreRefused(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, s *planfile.Store)
		want  error
	}{
		{"a symbolic link as the plan file", func(t *testing.T, s *planfile.Store) {
			target := filepath.Join(t.TempDir(), "elsewhere.md")
			if err := os.WriteFile(target, []byte("# Secret"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, s.Path(sid)); err != nil {
				t.Fatal(err)
			}
		}, planfile.ErrUnsafe},
		{"a hard-linked plan file", func(t *testing.T, s *planfile.Store) {
			if err := os.Link(s.Path(sid), filepath.Join(t.TempDir(), "other")); err != nil {
				t.Skipf("cannot hard-link across these directories: %v", err)
			}
		}, planfile.ErrUnsafe},
		{"a FIFO as the plan file", func(t *testing.T, s *planfile.Store) {
			if err := syscall.Mkfifo(s.Path(sid), 0o600); err != nil {
				t.Fatal(err)
			}
		}, planfile.ErrUnsafe},
		{"a directory as the plan file", func(t *testing.T, s *planfile.Store) {
			if err := os.Mkdir(s.Path(sid), 0o700); err != nil {
				t.Fatal(err)
			}
		}, planfile.ErrUnsafe},
		{"a plan file others can read", func(t *testing.T, s *planfile.Store) {
			mustReplace(t, s, sid, "# Plan")
			if err := os.Chmod(s.Path(sid), 0o644); err != nil {
				t.Fatal(err)
			}
		}, planfile.ErrUnsafe},
		{"a session directory others can enter", func(t *testing.T, s *planfile.Store) {
			if err := os.Chmod(sessionDir(s, sid), 0o755); err != nil {
				t.Fatal(err)
			}
		}, planfile.ErrUnsafe},
		{"a symbolic link as the session directory", func(t *testing.T, s *planfile.Store) {
			target := t.TempDir()
			if err := os.Chmod(target, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(target, planfile.FileName), []byte("# Other"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(s.Dir(), "s2")); err != nil {
				t.Fatal(err)
			}
		}, planfile.ErrUnsafe},
		{"an oversize file", func(t *testing.T, s *planfile.Store) {
			if err := os.WriteFile(s.Path(sid), []byte("# Big\n"+strings.Repeat("x", 5<<10)), 0o600); err != nil {
				t.Fatal(err)
			}
		}, planfile.ErrTooLarge},
		{"a file with a NUL byte", func(t *testing.T, s *planfile.Store) {
			if err := os.WriteFile(s.Path(sid), []byte("# Plan\x00"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, planfile.ErrBadContent},
		{"a file that is not UTF-8", func(t *testing.T, s *planfile.Store) {
			if err := os.WriteFile(s.Path(sid), []byte("# Plan \xff\xfe"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, planfile.ErrBadContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			if _, err := s.Seed(context.Background(), sid); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(s.Path(sid)); err != nil {
				t.Fatal(err)
			}
			// Some cases need a file to start from.
			if strings.Contains(tt.name, "hard-linked") {
				mustReplace(t, s, sid, "# Plan")
			}
			tt.setup(t, s)
			session := sid
			if strings.Contains(tt.name, "as the session directory") {
				session = "s2"
			}
			_, err := s.Read(context.Background(), session)
			if !errors.Is(err, tt.want) {
				t.Fatalf("read: %v, want %v", err, tt.want)
			}
			if tt.want != planfile.ErrUnsafe {
				return
			}
			err = s.Replace(context.Background(), session, "# New")
			if !errors.Is(err, planfile.ErrUnsafe) {
				t.Fatalf("replace: %v, want ErrUnsafe", err)
			}
		})
	}
}

func TestBadContentIsNeverWritten(t *testing.T) {
	tests := []struct {
		name string
		give string
		want error
	}{
		{"oversize", "# Big\n" + strings.Repeat("x", 5<<10), planfile.ErrTooLarge},
		{"NUL", "# Plan\x00", planfile.ErrBadContent},
		{"invalid UTF-8", "# Plan \xc3\x28", planfile.ErrBadContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			mustReplace(t, s, sid, "# Old")
			if err := s.Replace(context.Background(), sid, tt.give); !errors.Is(err, tt.want) {
				t.Fatalf("replace: %v, want %v", err, tt.want)
			}
			if d := mustRead(t, s, sid); d.Content != "# Old" {
				t.Fatalf("plan now %q", d.Content)
			}
		})
	}
}

func TestASymlinkSwappedInBeforeTheRenameIsNotFollowed(t *testing.T) {
	s := newStore(t)
	mustReplace(t, s, sid, "# Old")
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("untouched"), 0o600); err != nil {
		t.Fatal(err)
	}
	planfile.SetHook(s, func(stage, dir string) error {
		if stage != "temp-written" {
			return nil
		}
		p := filepath.Join(dir, planfile.FileName)
		if err := os.Remove(p); err != nil {
			return err
		}
		return os.Symlink(victim, p)
	})
	if err := s.Replace(context.Background(), sid, "# New"); !errors.Is(err, planfile.ErrSwapped) {
		t.Fatalf("replace: %v, want ErrSwapped", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "untouched" {
		t.Fatalf("victim now %q", b)
	}
	if fi, err := os.Lstat(s.Path(sid)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the swapped-in link was replaced: %v %v", fi, err)
	}
	assertNoTemps(t, s)
}

func TestAFileSwappedInDuringAReadIsAnError(t *testing.T) {
	s := newStore(t)
	mustReplace(t, s, sid, "# Old")
	planfile.SetHook(s, func(stage, dir string) error {
		if stage != "read-opened" {
			return nil
		}
		p := filepath.Join(dir, planfile.FileName)
		other := filepath.Join(dir, "other")
		if err := os.WriteFile(other, []byte("# Swapped"), 0o600); err != nil {
			return err
		}
		return os.Rename(other, p)
	})
	if _, err := s.Read(context.Background(), sid); !errors.Is(err, planfile.ErrSwapped) {
		t.Fatalf("read: %v, want ErrSwapped", err)
	}
}

func TestAFileAppearingDuringACreateIsKept(t *testing.T) {
	s := newStore(t)
	if _, err := s.Seed(context.Background(), "s0"); err != nil { // the store directory
		t.Fatal(err)
	}
	planfile.SetHook(s, func(stage, dir string) error {
		if stage != "temp-written" {
			return nil
		}
		return os.WriteFile(filepath.Join(dir, planfile.FileName), []byte("# Theirs"), 0o600)
	})
	created, err := s.Seed(context.Background(), sid)
	if err != nil || created {
		t.Fatalf("seed: %v %v, want kept", created, err)
	}
	planfile.SetHook(s, nil)
	if d := mustRead(t, s, sid); d.Content != "# Theirs" {
		t.Fatalf("plan %q", d.Content)
	}
}

func TestACrashBetweenTempWriteAndRenameKeepsTheOldPlan(t *testing.T) {
	s := newStore(t)
	mustReplace(t, s, sid, "# Old")
	crash := errors.New("crash")
	var leftover string
	planfile.SetHook(s, func(stage, dir string) error {
		if stage != "temp-written" {
			return nil
		}
		// What a crash leaves: the synced temporary file beside the plan.
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".tmp") {
				leftover = filepath.Join(dir, "crash-"+e.Name())
				b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				_ = os.WriteFile(filepath.Join(dir, ".plan-crashed.tmp"), b, 0o600)
			}
		}
		return crash
	})
	if err := s.Replace(context.Background(), sid, "# New"); !errors.Is(err, crash) {
		t.Fatalf("replace: %v", err)
	}
	planfile.SetHook(s, nil)
	if leftover == "" {
		t.Fatal("the hook saw no temporary file")
	}
	if d := mustRead(t, s, sid); d.Content != "# Old" {
		t.Fatalf("after the crash the plan is %q", d.Content)
	}
	mustReplace(t, s, sid, "# After")
	if d := mustRead(t, s, sid); d.Content != "# After" {
		t.Fatalf("plan %q", d.Content)
	}
	assertNoTemps(t, s)
}

func assertNoTemps(t *testing.T, s *planfile.Store) {
	t.Helper()
	entries, err := os.ReadDir(sessionDir(s, sid))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != planfile.FileName {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestCopyToGivesAForkItsParentsPlan(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if copied, err := s.CopyTo(ctx, "parent", "child"); err != nil || copied {
		t.Fatalf("copy without a source: %v %v", copied, err)
	}
	mustReplace(t, s, "parent", "# Parent")
	if copied, err := s.CopyTo(ctx, "parent", "child"); err != nil || !copied {
		t.Fatalf("copy: %v %v", copied, err)
	}
	if d := mustRead(t, s, "child"); d.Content != "# Parent" {
		t.Fatalf("child %q", d.Content)
	}
	mustReplace(t, s, "child", "# Child")
	if copied, err := s.CopyTo(ctx, "parent", "child"); err != nil || copied {
		t.Fatalf("second copy: %v %v", copied, err)
	}
	if d := mustRead(t, s, "child"); d.Content != "# Child" {
		t.Fatalf("copy overwrote the child's plan: %q", d.Content)
	}
}

func TestBadSessionNamesAreRefused(t *testing.T) {
	s := newStore(t)
	for _, id := range []string{"", ".", "..", "a/b", `a\b`, "a\x00"} {
		if err := s.Replace(context.Background(), id, "# P"); !errors.Is(err, planfile.ErrBadSession) {
			t.Errorf("%q: %v", id, err)
		}
	}
}

func TestConcurrentReplacesAndReadsSeeWholePlans(t *testing.T) {
	s := newStore(t)
	mustReplace(t, s, sid, "# Plan 0")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := range 10 {
				if err := s.Replace(context.Background(), sid, fmt.Sprintf("# Plan %d-%d", i, j)); err != nil {
					errs <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 10 {
				d, err := s.Read(context.Background(), sid)
				if err != nil {
					errs <- err
				} else if !strings.HasPrefix(d.Content, "# Plan ") {
					errs <- fmt.Errorf("torn read %q", d.Content)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestNewStoreChecksItsArguments(t *testing.T) {
	if _, err := planfile.NewStore("relative", 4<<10); err == nil {
		t.Error("relative dir accepted")
	}
	for _, n := range []int64{0, 1023, 16<<20 + 1} {
		if _, err := planfile.NewStore(t.TempDir(), n); err == nil {
			t.Errorf("max bytes %d accepted", n)
		}
	}
}
