//go:build !unix && !windows

package store

import (
	"errors"
	"io"
	"os"
)

// kernelLocks: these systems (Plan 9, WebAssembly) offer rsx no file lock,
// so here the lock is the lock file's content alone: a run that was killed
// leaves it behind, to be removed by hand, and two runs starting at the
// same instant can both read an empty file and both go on. Unix and Windows
// have a kernel lock (lock_unix.go, lock_windows.go).
const kernelLocks = false

var errLocked = errors.New("locked")

// lockFile takes the lock when the file holds no holder.
func lockFile(f *os.File) error {
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, ok := decodeHolder(b); ok {
		return errLocked
	}
	return nil
}

func unlockFile(*os.File) error { return nil }

// lockFileShared: the lock is refused while the file names a holder.
func lockFileShared(f *os.File) error {
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return err
	}
	if _, ok := decodeHolder(b); ok {
		return errLocked
	}
	return nil
}

// isNotEmpty: any error removing a folder is taken as its holding files.
func isNotEmpty(error) bool { return true }
