//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package planfile

import (
	"fmt"
	"os"
)

const (
	oNonblock = 0
	oNoFollow = 0
)

func links(os.FileInfo) uint64 { return 0 }

func renameat(*os.File, string, string) error {
	return fmt.Errorf("%s: %w", PluginName, ErrUnsupported)
}

func linkat(*os.File, string, string) error {
	return fmt.Errorf("%s: %w", PluginName, ErrUnsupported)
}

func isLoop(error) bool { return false }

func sameFile(a, b os.FileInfo) bool { return os.SameFile(a, b) }
