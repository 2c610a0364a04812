//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// kernelLocks: the kernel holds a folder's lock (flock) and frees it when the
// holding process ends, however it ends, so a lock is never stale.
const kernelLocks = true

var errLocked = errors.New("locked")

// lockFile takes an exclusive lock on f without waiting.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// lockFileShared takes a shared lock on f (open for reading) without waiting:
// shared locks go together, never with an exclusive one.
func lockFileShared(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// isNotEmpty tells a folder that could not be removed because it holds files.
func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}
