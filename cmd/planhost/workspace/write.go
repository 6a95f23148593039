package workspace

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
)

var writeFileSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File relative to the workspace root."},
    "content": {"type": "string", "description": "The whole new content of the file."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`)

// Permissions of what write_file creates.
const (
	newFilePerm = 0o644
	newDirPerm  = 0o755
)

// writeFile is the write_file tool.
func (w *Workspace) writeFile(ctx context.Context, input json.RawMessage) (string, error) {
	var in struct {
		Path    *string `json:"path"`
		Content *string `json:"content"`
	}
	if err := decodeInput(input, &in); err != nil {
		return "", err
	}
	if err := required("path", in.Path); err != nil {
		return "", err
	}
	if err := required("content", in.Content); err != nil {
		return "", err
	}
	rel, err := CleanPath(*in.Path)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", fmt.Errorf("%w: "+msgRootPath, ErrBadInput, *in.Path)
	}
	if n := int64(len(*in.Content)); n > w.limits.MaxWriteBytes {
		return "", fmt.Errorf("%w: "+msgWriteLarge, ErrTooLarge, n, w.limits.MaxWriteBytes)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := w.checkAllowed(rel); err != nil {
		return "", err
	}
	created, err := w.write(rel, []byte(*in.Content))
	if err != nil {
		return "", err
	}
	if created {
		return fmt.Sprintf(msgCreated, rel, len(*in.Content)), nil
	}
	return fmt.Sprintf(msgWrote, len(*in.Content), rel), nil
}

// write replaces rel with data through a temporary file beside it and a
// rename, so a reader never sees half a file. It reports whether rel is new.
func (w *Workspace) write(rel string, data []byte) (created bool, err error) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()

	perm := os.FileMode(newFilePerm)
	info, err := w.root.Stat(rel)
	switch {
	case err == nil && info.IsDir():
		return false, fmt.Errorf(msgIsDir, rel)
	case err == nil && !info.Mode().IsRegular():
		return false, fmt.Errorf(msgNotRegular, rel)
	case err == nil:
		perm = info.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		created = true
	default:
		return false, fsError(rel, err)
	}
	if dir := path.Dir(rel); dir != "." {
		if err := w.root.MkdirAll(dir, newDirPerm); err != nil {
			return false, fsError(dir, err)
		}
	}
	// A new file with a name nobody can guess, made with O_EXCL, so that
	// nothing planted in the workspace (a hard link or a symbolic link at
	// a name a writer might use) is ever written through.
	tmp := path.Join(path.Dir(rel), "."+path.Base(rel)+"."+rand.Text()+".tmp")
	f, err := w.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return false, fsError(rel, err)
	}
	_, werr := f.Write(data)
	werr = errors.Join(werr, f.Close())
	if werr == nil {
		werr = w.root.Rename(tmp, rel)
	}
	if werr != nil {
		_ = w.root.Remove(tmp)
		return false, fsError(rel, werr)
	}
	return created, nil
}
