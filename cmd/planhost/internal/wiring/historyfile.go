package wiring

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// Bounds of the terminal's input history.
const (
	maxHistoryEntries = 500
	maxHistoryRead    = 1 << 20
)

// LoadHistory reads the history file's entries, oldest first: one entry a
// line, as a quoted Go string (so that an entry may hold newlines), or as
// the raw line (a file readline wrote). Only the last maxHistoryRead bytes
// are read.
func LoadHistory(path string) []string {
	f, err := os.OpenFile(path, os.O_RDONLY|OpenNoFollow|OpenNonblock, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	if size := info.Size(); size > maxHistoryRead {
		if _, err := f.Seek(size-maxHistoryRead, io.SeekStart); err != nil {
			return nil
		}
	}
	var out []string
	sc := bufio.NewScanner(io.LimitReader(f, maxHistoryRead))
	sc.Buffer(nil, maxHistoryRead)
	for sc.Scan() {
		line := sc.Text()
		if s, err := strconv.Unquote(line); err == nil && strings.HasPrefix(line, `"`) {
			line = s
		}
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	if len(out) > maxHistoryEntries {
		out = out[len(out)-maxHistoryEntries:]
	}
	return out
}

// AppendHistory adds one entry to the history file.
func AppendHistory(path, entry string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|OpenNoFollow|OpenNonblock, historyFilePerm)
	if err != nil {
		return err
	}
	_, err = f.WriteString(strconv.Quote(entry) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
