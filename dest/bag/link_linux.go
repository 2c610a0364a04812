package bag

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// clone makes out, a new empty file, a reflink of the open file f: a
// copy-on-write clone (FICLONE: btrfs, XFS, bcachefs, …) that shares the
// blocks until either is written, so that it costs no bytes and the bag and
// the copy still change independently. An error where the file system has
// none (ext4, tmpfs, two file systems): the caller copies.
func clone(out, f *os.File) error {
	return unix.IoctlFileClone(int(out.Fd()), int(f.Fd()))
}

// hardLink makes dst a hard link to the very inode f opened (through
// /proc/self/fd, so that a path swapped since cannot redirect it). The bag's
// file is then the copy's own: an edit of either in place changes both.
func hardLink(f *os.File, dst string) bool {
	err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), unix.AT_FDCWD, dst, unix.AT_SYMLINK_FOLLOW)
	return err == nil
}
