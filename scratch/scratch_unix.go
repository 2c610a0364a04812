//go:build unix

package scratch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ownedPrivateDir checks that dir is a directory of the current user, not a
// symbolic link, and makes it private (0700).
func ownedPrivateDir(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("temporary folder %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("temporary folder %s: not a directory", dir)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("temporary folder %s: owned by user %d, not by this user (%d)", dir, sys.Uid, os.Getuid())
	}
	if st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("temporary folder %s: %w", dir, err)
		}
	}
	return nil
}

// lockFile takes an exclusive lock on f, held until f is closed or the
// process ends, however it ends.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// lockFree tells whether nobody holds the lock on path (a missing file is
// free).
func lockFree(path string) bool {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return false
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return true
}

// processExists tells whether a process has the given pid (one of another
// user counts too).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// startTime is when process pid started, in clock ticks since boot (field
// 22 of /proc/PID/stat), "0" where that cannot be read.
func startTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "0"
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return "0"
	}
	f := strings.Fields(s[i+1:])
	// Fields after the name start at field 3 (state): field 22 is f[19].
	if len(f) < 20 {
		return "0"
	}
	if _, err := strconv.ParseUint(f[19], 10, 64); err != nil {
		return "0"
	}
	return f[19]
}
