package bag

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// link makes dst the open file f without copying its bytes: a reflink (a
// copy-on-write clone: the bag and the copy then change independently) where
// the file system has them, else a hard link to the very inode opened (through
// /proc/self/fd, so that a path swapped since cannot redirect it).
func link(f *os.File, dst string) (linkKind, bool) {
	if out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
		cerr := unix.IoctlFileClone(int(out.Fd()), int(f.Fd()))
		if err := out.Close(); cerr == nil && err == nil {
			return reflinked, true
		}
		os.Remove(dst)
	}
	err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), unix.AT_FDCWD, dst, unix.AT_SYMLINK_FOLLOW)
	return hardLinked, err == nil
}
