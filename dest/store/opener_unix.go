//go:build unix

package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// openerSys is the folder a dirOpener keeps open, by descriptor.
type openerSys struct {
	dir   *os.File // the folder opened
	dirFD int      // dir's descriptor
}

// openFolder opens the folder parent (checked) of the destination, through
// its os.Root, and keeps its descriptor: each file is then looked at and
// opened relative to it by the system calls themselves, with no os.File
// (which registers every file with the poller, and is most of what opening
// a small file costs beside the calls).
func (o *dirOpener) openFolder(parent string) error {
	f, err := o.d.root.Open(parent)
	if err != nil {
		return err
	}
	o.dir, o.dirFD = f, int(f.Fd())
	return nil
}

func (o *dirOpener) closeFolder() error {
	if o.dir == nil {
		return nil
	}
	err := o.dir.Close()
	o.dir, o.dirFD = nil, -1
	return err
}

// openHere opens the regular file name (one path segment) of the folder
// open, the file p, as Open does: a link is not followed (it may lead into
// .rsx), a pipe or a device is not opened at all, and a file replaced
// between the look and the opening is refused.
func (o *dirOpener) openHere(p, name string) (io.ReadCloser, error) {
	fail := func(op string, err error) error {
		return fmt.Errorf("open %s in %s: %w", p, o.d.dir, &fs.PathError{Op: op, Path: p, Err: err})
	}
	var look unix.Stat_t
	if err := ignoringEINTR(func() error { return unix.Fstatat(o.dirFD, name, &look, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return nil, fail("lstat", err)
	}
	if uint32(look.Mode)&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("open %s in %s: not a regular file (%s)", p, o.d.dir, fileType(uint32(look.Mode)))
	}
	var fd int
	err := ignoringEINTR(func() error {
		var err error
		fd, err = unix.Openat(o.dirFD, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, fail("open", err)
	}
	f := &fdFile{fd: fd, name: name}
	if err := ignoringEINTR(func() error { return unix.Fstat(fd, &f.st) }); err != nil {
		f.Close()
		return nil, fail("fstat", err)
	}
	if uint32(f.st.Mode)&unix.S_IFMT != unix.S_IFREG || f.st.Dev != look.Dev || f.st.Ino != look.Ino {
		f.Close()
		return nil, fmt.Errorf("open %s in %s: %w", p, o.d.dir, errors.New("not a regular file, or replaced while opened"))
	}
	return f, nil
}

func ignoringEINTR(fn func() error) error {
	for {
		if err := fn(); err != unix.EINTR {
			return err
		}
	}
}

// fileType names a file's type by its mode bits, as an error says it.
func fileType(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return "a symbolic link"
	case unix.S_IFDIR:
		return "a folder"
	case unix.S_IFIFO:
		return "a named pipe"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	}
	return "not a file"
}

// fdFile is a regular file a dirOpener opened: read by its descriptor,
// described by the fstat taken when it was opened.
//
// A read that comes short of its buffer at the size fstat gave is the
// file's end: the next Read says io.EOF without asking read(2) again (a
// sixth of the system calls of an audit's small files, which are read
// whole in one call). Bytes appended since then are not read, as if they
// had come just after the end was read.
type fdFile struct {
	fd   int
	name string
	st   unix.Stat_t
	off  int64 // bytes read
	// short: the last read filled less than its buffer.
	short bool
}

func (f *fdFile) Read(p []byte) (int, error) {
	if f.fd < 0 {
		return 0, fs.ErrClosed
	}
	if len(p) == 0 {
		return 0, nil
	}
	if f.short && f.off == f.st.Size {
		return 0, io.EOF
	}
	for {
		n, err := unix.Read(f.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		f.off += int64(n)
		f.short = n < len(p)
		return n, nil
	}
}

func (f *fdFile) Close() error {
	if f.fd < 0 {
		return fs.ErrClosed
	}
	err := unix.Close(f.fd)
	f.fd = -1
	return err
}

// Stat describes the file as it was opened.
func (f *fdFile) Stat() (fs.FileInfo, error) {
	return fdInfo{name: f.name, size: f.st.Size, perm: fs.FileMode(f.st.Mode) & fs.ModePerm, mtime: time.Unix(int64(f.st.Mtim.Sec), int64(f.st.Mtim.Nsec))}, nil
}

// fdInfo describes a regular file.
type fdInfo struct {
	name  string
	size  int64
	perm  fs.FileMode
	mtime time.Time
}

func (i fdInfo) Name() string       { return i.name }
func (i fdInfo) Size() int64        { return i.size }
func (i fdInfo) Mode() fs.FileMode  { return i.perm }
func (i fdInfo) ModTime() time.Time { return i.mtime }
func (i fdInfo) IsDir() bool        { return false }
func (i fdInfo) Sys() any           { return nil }
