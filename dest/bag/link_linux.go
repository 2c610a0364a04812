package bag

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// clone makes dst a reflink of the open file f: a copy-on-write clone
// (FICLONE: btrfs, XFS, bcachefs, …) that shares the blocks until either is
// written, so that it costs no bytes and the bag and the copy still change
// independently. False where the file system has none (ext4, tmpfs, two
// file systems): the caller copies.
func clone(f *os.File, dst string) bool {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return false
	}
	cerr := unix.IoctlFileClone(int(out.Fd()), int(f.Fd()))
	if err := out.Close(); cerr == nil && err == nil {
		return true
	}
	os.Remove(dst)
	return false
}

// hardLink makes dst a hard link to the very inode f opened (through
// /proc/self/fd, so that a path swapped since cannot redirect it). The bag's
// file is then the copy's own: an edit of either in place changes both.
func hardLink(f *os.File, dst string) bool {
	err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), unix.AT_FDCWD, dst, unix.AT_SYMLINK_FOLLOW)
	return err == nil
}
