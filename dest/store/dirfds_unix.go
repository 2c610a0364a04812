//go:build unix

package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// maxFolderFDs is the most folders of the copy a Dir keeps open for the
// renames of its writes (see folderFD): the folders a baseline writes into
// come in runs, and each one open costs a descriptor.
const maxFolderFDs = 64

// dirFDs are the folders a Dir keeps open by descriptor so that a write's
// temporary is made, and renamed into place, by one system call each
// relative to them (openat, renameat) instead of through os.Root, which
// opens every folder of both paths again for each call (eight openat and
// eight close a file: a fifth of a folder baseline's CPU).
type dirFDs struct {
	top, tmp     *os.File             // the destination itself, and DEST/.rsx/tmp, where the temporaries are made
	topFD, tmpFD int                  // their descriptors
	folders      map[string]*folderFD // guarded by Dir.mu
}

// folderFD is a folder of the copy kept open. refs counts the renames using
// it; a folder dropped (removed, forgotten) while in use is closed by the
// last of them.
type folderFD struct {
	f       *os.File
	fd      int // f's descriptor
	refs    int
	dropped bool
}

// openFDs opens the destination and DEST/.rsx/tmp by descriptor. Without
// them (an error) every write goes through os.Root as before.
func (d *Dir) openFDs() {
	top, err := d.root.Open(".")
	if err != nil {
		return
	}
	tmp, err := d.root.Open(ReservedDir + "/tmp")
	if err != nil {
		top.Close()
		return
	}
	d.fds = &dirFDs{top: top, tmp: tmp, topFD: int(top.Fd()), tmpFD: int(tmp.Fd()), folders: map[string]*folderFD{}}
}

// closeFDs closes the descriptors openFDs opened and every folder kept.
func (d *Dir) closeFDs() {
	if d.fds == nil {
		return
	}
	d.mu.Lock()
	fds := d.fds
	d.fds = nil
	for p, e := range fds.folders {
		delete(fds.folders, p)
		if e.refs == 0 {
			e.f.Close()
		} else {
			e.dropped = true
		}
	}
	d.mu.Unlock()
	fds.top.Close()
	fds.tmp.Close()
}

// createTemp makes the temporary name (one segment) in DEST/.rsx/tmp, new,
// for writing; tmp is its path in the root.
func (d *Dir) createTemp(tmp, name string) (*os.File, error) {
	if d.fds == nil {
		return d.root.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	}
	var fd int
	err := ignoringEINTR(func() error {
		var err error
		fd, err = unix.Openat(d.fds.tmpFD, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		return err
	})
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: tmp, Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.dir, filepath.FromSlash(tmp))), nil
}

// renameFast renames the temporary name of DEST/.rsx/tmp to base in the
// folder parent (made and checked by mkdirs) by one renameat relative to the
// folders kept open. ok is false when it could not be tried (the folder
// could not be opened that way, e.g. a link where a folder was, or the
// descriptors are not kept): the caller renames through os.Root, which
// gives the error. A folder removed since it was opened gives an error that
// wraps fs.ErrNotExist, as os.Root's rename does.
func (d *Dir) renameFast(name, parent, base string) (ok bool, err error) {
	if d.fds == nil {
		return false, nil
	}
	e := d.folder(parent)
	if e == nil {
		return false, nil
	}
	defer d.release(e)
	err = ignoringEINTR(func() error {
		return unix.Renameat(d.fds.tmpFD, name, e.fd, base)
	})
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			d.dropFolder(parent)
		}
		return true, &os.LinkError{Op: "renameat", Old: ReservedDir + "/tmp/" + name, New: joinSlash(parent, base), Err: err}
	}
	return true, nil
}

func joinSlash(parent, base string) string {
	if parent == "." {
		return base
	}
	return parent + "/" + base
}

// folder returns the folder parent kept open, opening it (and keeping it)
// when it is not; nil when it cannot be opened by plain folders from the
// top (a link on the way, or gone). The caller releases it.
func (d *Dir) folder(parent string) *folderFD {
	d.mu.Lock()
	if d.fds == nil {
		d.mu.Unlock()
		return nil
	}
	if e := d.fds.folders[parent]; e != nil {
		e.refs++
		d.mu.Unlock()
		return e
	}
	top := d.fds.topFD
	d.mu.Unlock()
	f, fd := openFolderNoLinks(top, parent)
	if f == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fds == nil {
		f.Close()
		return nil
	}
	if e := d.fds.folders[parent]; e != nil {
		f.Close()
		e.refs++
		return e
	}
	if len(d.fds.folders) >= maxFolderFDs {
		for p, o := range d.fds.folders {
			if o.refs == 0 {
				delete(d.fds.folders, p)
				o.f.Close()
				break
			}
		}
	}
	e := &folderFD{f: f, fd: fd, refs: 1}
	if len(d.fds.folders) < maxFolderFDs {
		d.fds.folders[parent] = e
	} else {
		e.dropped = true // every one kept is in use: this one is closed after its rename
	}
	return e
}

// release ends a rename's use of a folder kept open.
func (d *Dir) release(e *folderFD) {
	d.mu.Lock()
	e.refs--
	closeIt := e.refs == 0 && e.dropped
	d.mu.Unlock()
	if closeIt {
		e.f.Close()
	}
}

// dropFolder closes the folder p kept open, if it is, and those inside it.
func (d *Dir) dropFolder(p string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dropFoldersLocked(p)
}

// dropFoldersLocked drops the folder p and the folders inside it (d.mu
// held): a folder removed, or forgotten, is opened again by path.
func (d *Dir) dropFoldersLocked(p string) {
	if d.fds == nil {
		return
	}
	for f, e := range d.fds.folders {
		if f == p || strings.HasPrefix(f, p+"/") || p == "." {
			delete(d.fds.folders, f)
			if e.refs == 0 {
				e.f.Close()
			} else {
				e.dropped = true
			}
		}
	}
}

// openFolderNoLinks opens the folder p below top one segment at a time,
// following no symbolic link (O_NOFOLLOW|O_DIRECTORY on each): it reaches
// only a folder inside the destination, whatever was put on the way.
func openFolderNoLinks(top int, p string) (*os.File, int) {
	fd := -1
	if p == "." {
		var err error
		if fd, err = unix.FcntlInt(uintptr(top), unix.F_DUPFD_CLOEXEC, 0); err != nil {
			return nil, -1
		}
		return os.NewFile(uintptr(fd), p), fd
	}
	at := top
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			if fd >= 0 {
				unix.Close(fd)
			}
			return nil, -1
		}
		var next int
		err := ignoringEINTR(func() error {
			var err error
			next, err = unix.Openat(at, seg, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			return err
		})
		if fd >= 0 {
			unix.Close(fd)
		}
		if err != nil {
			return nil, -1
		}
		fd, at = next, next
	}
	return os.NewFile(uintptr(fd), p), fd
}
