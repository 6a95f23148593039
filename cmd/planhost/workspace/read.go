package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

var readFileSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File relative to the workspace root."}
  },
  "required": ["path"],
  "additionalProperties": false
}`)

// readFile is the read_file tool.
func (w *Workspace) readFile(ctx context.Context, input json.RawMessage) (string, error) {
	var in struct {
		Path *string `json:"path"`
	}
	if err := decodeInput(input, &in); err != nil {
		return "", err
	}
	if err := required("path", in.Path); err != nil {
		return "", err
	}
	rel, err := CleanPath(*in.Path)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", fmt.Errorf(msgIsDir, rel)
	}
	if err := w.checkAllowed(rel); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	data, err := w.readText(rel, w.limits.MaxReadBytes)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// readText reads the regular text file rel, refusing directories, files
// over limit bytes and binary files.
// The file is opened without blocking and checked to be regular before any
// read, so a FIFO or a device never hangs the call.
func (w *Workspace) readText(rel string, limit int64) ([]byte, error) {
	f, err := w.root.OpenFile(rel, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, fsError(rel, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fsError(rel, err)
	}
	if info.IsDir() {
		return nil, fmt.Errorf(msgIsDir, rel)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf(msgNotRegular, rel)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%w: "+msgReadLarge, ErrTooLarge, rel, info.Size(), limit)
	}
	// The file may grow between Stat and Read: read one byte past the limit
	// to notice.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fsError(rel, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: "+msgReadLarge, ErrTooLarge, rel, int64(len(data)), limit)
	}
	if looksBinary(data) {
		return nil, fmt.Errorf("%w: "+msgBinary, ErrNotText, rel)
	}
	return data, nil
}

// sniffLen is how much of a file looksBinary inspects.
const sniffLen = 8000

// looksBinary reports whether data has a NUL byte or is not valid UTF-8 in
// its first few kilobytes.
func looksBinary(data []byte) bool {
	head := data[:min(len(data), sniffLen)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if utf8.Valid(head) {
		return false
	}
	// A multi-byte rune cut at the sniff boundary is still text.
	for i := 1; i < utf8.UTFMax && i <= len(head); i++ {
		if utf8.Valid(head[:len(head)-i]) && len(head) == sniffLen {
			return false
		}
	}
	return true
}
