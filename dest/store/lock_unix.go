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
