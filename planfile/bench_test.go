//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package planfile_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshgo/planmode/planfile"
)

// BenchmarkStore measures a read and an atomic replace of a 4 KiB plan
// (the replace includes two fsyncs).
func BenchmarkStore(b *testing.B) {
	s, err := planfile.NewStore(filepath.Join(b.TempDir(), "plans"), planfile.DefaultMaxBytes)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	plan := "# Plan\n\n" + strings.Repeat("- a step of the plan\n", 200)
	if err := s.Replace(ctx, "s", plan); err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := s.Read(ctx, "s"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("replace", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if err := s.Replace(ctx, "s", plan); err != nil {
				b.Fatal(err)
			}
		}
	})
}
