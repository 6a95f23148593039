package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// Modes of what planhost keeps in its state directory.
const (
	historyFilePerm = 0o600
	privateDirPerm  = 0o700
)

// openHistoryFile prepares the terminal history file in planhost's
// directory under stateDir and returns its path: the directory is created
// 0700, or, when it exists, must be a directory of this user that no one
// else may enter (it is not changed: the user is told how to fix it); the
// file is created 0600, and an existing one must be a regular file of this
// user and is tightened to 0600.
func openHistoryFile(stateDir string) (string, error) {
	dir := filepath.Join(stateDir, appDirName)
	if err := os.MkdirAll(dir, privateDirPerm); err != nil {
		return "", fmt.Errorf(errHistory, dir, err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf(errHistory, dir, err)
	}
	switch {
	case !info.IsDir():
		return "", fmt.Errorf(errHistoryDirKind, dir)
	case !ownedBySelf(info):
		return "", fmt.Errorf(errHistoryDirOwner, dir)
	case info.Mode().Perm()&0o077 != 0:
		return "", fmt.Errorf(errHistoryDirMode, dir, info.Mode().Perm(), dir)
	}
	path := filepath.Join(dir, historyFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|openNoFollow|openNonblock, historyFilePerm)
	if err != nil {
		return "", fmt.Errorf(errHistory, path, err)
	}
	defer f.Close()
	info, err = f.Stat()
	if err != nil {
		return "", fmt.Errorf(errHistory, path, err)
	}
	switch {
	case !info.Mode().IsRegular():
		return "", fmt.Errorf(errHistoryFileKind, path)
	case !ownedBySelf(info):
		return "", fmt.Errorf(errHistoryDirOwner, path)
	case info.Mode().Perm() != historyFilePerm:
		if err := f.Chmod(historyFilePerm); err != nil {
			return "", fmt.Errorf(errHistory, path, err)
		}
	}
	return path, nil
}
