//go:build windows

package store

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// kernelLocks: Windows holds the lock (LockFileEx) and frees it when the
// holding process ends, however it ends, so a lock is never stale.
const kernelLocks = true

var errLocked = errors.New("locked")

// lockOffset is where the locked byte lies: far past any holder the file
// will hold. Windows' byte-range locks are mandatory, so a lock over the
// content itself would keep the next run from reading who holds the folder;
// a range past the end of the file may be locked and blocks no read.
const lockOffset = 1 << 62

func lockRange() *windows.Overlapped {
	return &windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
}

// lockFile takes an exclusive lock on f without waiting. Taking it is one
// call that the kernel decides, so two runs starting together cannot both
// get it (reading the file for a holder, then writing one, could).
func lockFile(f *os.File) error {
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, lockRange())
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errLocked
	}
	return err
}

func unlockFile(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockRange())
}

// lockFileShared takes a shared lock on f (open for reading) without
// waiting: shared locks go together, never with an exclusive one.
func lockFileShared(f *os.File) error {
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, lockRange())
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errLocked
	}
	return err
}

// isNotEmpty tells a folder that could not be removed because it holds files.
func isNotEmpty(err error) bool {
	return errors.Is(err, windows.ERROR_DIR_NOT_EMPTY)
}
