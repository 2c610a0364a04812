package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"rsx/dest/pathmap"
)

// Dir is a destination folder. Every file operation goes through an os.Root
// opened on it, so no path, and no symbolic link met on the way, can reach
// outside it (a link that leads out, or an absolute one, is refused).
// Inside it, rsx follows no link either: a resource's path whose folders
// include a symbolic link is refused (a *LinkError), wherever the link
// leads, so that no write lands in DEST/.rsx or anywhere the state does not
// say; a link at the file's own place is replaced by the file, as rsync
// does. DEST/.rsx must hold only plain files and folders (checkReserved).
// On unix a write makes its temporary, and renames it into place, relative
// to folders kept open by descriptor (dirfds_unix.go), each opened from the
// top one plain folder at a time, following no link: the same holds for
// them. (A folder kept open that someone moves elsewhere during a run is
// written where it went, as the root itself would be; one removed is made
// again, and one replaced by a link refused, at the next write into it.)
//
// A write goes to a temporary file in DEST/.rsx/tmp (the same file system),
// which Commit fsyncs and renames into place; Sync then fsyncs the folders
// whose entries changed. A write abandoned, rejected or interrupted leaves the
// old file as it was.
type Dir struct {
	dir      string   // absolute, symbolic links resolved
	root     *os.Root // nil for a read-only folder that does not exist (an empty destination)
	foldCase bool
	// what .rsx/rejected keeps (Options.KeepRejectedFiles)
	keepFiles int
	keepBytes int64
	readOnly  bool   // opened with Options.ReadOnly: nothing is written
	tempDir   string // a read-only folder's TempDir, outside it
	hostID    string // Options.HostID, named in the lock
	// made records what Open made, for Discard: the folder itself, or its
	// ReservedDir.
	madeDir, madeReserved bool

	mu    sync.Mutex
	made  map[string]bool // folders known to exist
	dirty map[string]bool // folders whose entries changed since the last Sync
	fds   *dirFDs         // folders kept open for the writes (dirfds_unix.go); nil: through root
}

// OpenDir opens a destination folder (creating it with opts.Create).
//
// With opts.ReadOnly nothing in the folder is made or changed (see
// Options.ReadOnly); a folder that does not exist is then an empty
// destination when opts.Create is set, and an error otherwise.
func OpenDir(dir string, opts Options) (*Dir, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("destination %s: %w", dir, err)
	}
	if opts.ReadOnly {
		return openDirReadOnly(dir, abs, opts)
	}
	madeDir := false
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) && opts.Create {
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, fmt.Errorf("create destination %s: %w", dir, err)
		}
		madeDir = true
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("destination %s: %w", dir, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("destination %s is not a folder", dir)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("destination %s: %w", dir, err)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("destination %s: %w", dir, err)
	}
	d := &Dir{dir: real, root: root, made: map[string]bool{}, dirty: map[string]bool{}, madeDir: madeDir, hostID: opts.hostID()}
	d.keepFiles, d.keepBytes = opts.keepRejected()
	if _, err := root.Lstat(ReservedDir); errors.Is(err, fs.ErrNotExist) {
		d.madeReserved = true
	}
	if err := d.checkReserved(); err != nil {
		root.Close()
		return nil, err
	}
	if err := root.MkdirAll(ReservedDir+"/tmp", 0o755); err != nil {
		root.Close()
		return nil, fmt.Errorf("destination %s: create %s: %w", dir, ReservedDir+"/tmp", err)
	}
	if d.foldCase, err = d.probeCase(); err != nil {
		root.Close()
		return nil, err
	}
	d.openFDs()
	return d, nil
}

// probeCase finds out whether the file system ignores case: a file made with
// a lower-case name is looked up by its upper-case name.
func (d *Dir) probeCase() (bool, error) {
	name := ReservedDir + "/tmp/case-probe-" + randomName()
	f, err := d.root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false, fmt.Errorf("destination %s: probe the file system: %w", d.dir, err)
	}
	f.Close()
	defer d.root.Remove(name)
	_, err = d.root.Lstat(ReservedDir + "/tmp/" + strings.ToUpper(path.Base(name)))
	return err == nil, nil
}

func randomName() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (d *Dir) String() string { return d.dir }

// CaseInsensitive reports what the probe at Open found.
func (d *Dir) CaseInsensitive() bool { return d.foldCase }

// TempDir is DEST/.rsx/tmp (for a read-only folder Options.TempDir, or the
// system's temporary folder).
func (d *Dir) TempDir() string {
	if d.readOnly {
		return d.tempDir
	}
	return filepath.Join(d.dir, ReservedDir, "tmp")
}

// Close closes the folder.
func (d *Dir) Close() error {
	if d.root == nil {
		return nil
	}
	d.closeFDs()
	return d.root.Close()
}

// StatePath is DEST/.rsx/state.db; for a read-only folder without one, "".
func (d *Dir) StatePath(context.Context) (string, error) {
	p := filepath.Join(d.dir, filepath.FromSlash(StateFile))
	if d.readOnly {
		if d.root == nil {
			return "", nil
		}
		if _, err := d.root.Lstat(StateFile); errors.Is(err, fs.ErrNotExist) {
			return "", nil
		} else if err != nil {
			return "", fmt.Errorf("state of %s: %w", d.dir, err)
		}
	}
	return p, nil
}

// PublishState does nothing: the state lives in the folder already.
func (d *Dir) PublishState(context.Context, string) error { return nil }

// Lock takes DEST/.rsx/lock (see lockFile), empties DEST/.rsx/tmp and
// prunes DEST/.rsx/rejected (as Release does again).
// A read-only folder's lock is shared (see lockReadOnly).
func (d *Dir) Lock(ctx context.Context) (*Lock, error) {
	if d.readOnly {
		return d.lockReadOnly()
	}
	lockPath := ReservedDir + "/lock"
	f, err := d.root.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock destination %s: %w", d.dir, err)
	}
	where := filepath.Join(d.dir, filepath.FromSlash(lockPath))
	if err := lockFile(f); err != nil {
		prev, _ := io.ReadAll(io.LimitReader(f, 4096))
		f.Close()
		if errors.Is(err, errLocked) {
			h, _ := decodeHolder(prev)
			le := &LockedError{Dest: d.dir, Holder: h, Where: where}
			if !kernelLocks {
				le.Hint = "if no rsx run is going on, remove the lock file"
			}
			return nil, le
		}
		return nil, fmt.Errorf("lock destination %s: %w", d.dir, err)
	}
	prev, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		unlockFile(f)
		f.Close()
		return nil, fmt.Errorf("lock destination %s: read %s: %w", d.dir, where, err)
	}
	me := newHolder(time.Now())
	me.ID = d.hostID
	if err := rewrite(f, me.encode()); err != nil {
		unlockFile(f)
		f.Close()
		return nil, fmt.Errorf("lock destination %s: write %s: %w", d.dir, where, err)
	}
	l := &Lock{Holder: me}
	if h, ok := decodeHolder(prev); ok {
		l.TookOver = &h
	}
	released := false
	l.release = func() error {
		if released {
			return nil
		}
		released = true
		_, err := d.pruneRejected()
		// An empty lock file is a lock released cleanly: the next run knows
		// it takes over nothing.
		if rerr := rewrite(f, nil); err == nil {
			err = rerr
		}
		if uerr := unlockFile(f); err == nil {
			err = uerr
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("release the lock of %s: %w", d.dir, err)
		}
		return nil
	}
	n, err := d.removeTemporaries()
	l.Removed = n
	if err == nil {
		l.Pruned, err = d.pruneRejected()
	}
	if err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

func rewrite(f *os.File, b []byte) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		return err
	}
	return f.Sync()
}

// removeTemporaries empties DEST/.rsx/tmp (only while the lock is held: no
// other run is writing there).
func (d *Dir) removeTemporaries() (int, error) {
	entries, err := fs.ReadDir(d.root.FS(), ReservedDir+"/tmp")
	if err != nil {
		return 0, fmt.Errorf("list the temporaries of %s: %w", d.dir, err)
	}
	n := 0
	for _, e := range entries {
		if err := d.root.RemoveAll(ReservedDir + "/tmp/" + e.Name()); err != nil {
			return n, fmt.Errorf("remove a temporary of an interrupted run in %s: %w", d.dir, err)
		}
		n++
	}
	return n, nil
}

// Create begins the write of path in a temporary file.
func (d *Dir) Create(_ context.Context, p string, _ Meta) (Writer, error) {
	if err := CheckPath(p); err != nil {
		return nil, fmt.Errorf("write to %s: %w", d.dir, err)
	}
	if d.readOnly {
		return nil, fmt.Errorf("write %s to %s: %w", p, d.dir, ErrReadOnly)
	}
	name := randomName()
	tmp := ReservedDir + "/tmp/" + name
	f, err := d.createTemp(tmp, name)
	if err != nil {
		return nil, fmt.Errorf("write %s: create a temporary file: %w", p, err)
	}
	return &dirWriter{tempWrite: tempWrite{path: p, f: f}, d: d, tmp: tmp, name: name}, nil
}

type dirWriter struct {
	tempWrite
	d     *Dir
	tmp   string    // the temporary's path inside the root
	name  string    // its name in DEST/.rsx/tmp
	mtime time.Time // the file's modification time, once durable
}

// ModTime is the committed file's modification time (a rename keeps it).
func (w *dirWriter) ModTime() time.Time { return w.mtime }

func (w *dirWriter) Commit(context.Context) error {
	if w.done {
		return fmt.Errorf("commit %s: already committed or abandoned", w.path)
	}
	w.done = true
	if err := w.f.Sync(); err != nil {
		return w.fail("fsync", err)
	}
	return w.place()
}

// fail abandons a write that could not be committed.
func (w *dirWriter) fail(what string, err error) error {
	w.f.Close()
	w.d.root.Remove(w.tmp)
	return fmt.Errorf("commit %s: %s: %w", w.path, what, err)
}

// CommitBatch makes the bytes of every write durable with one flush of the
// file system (syncfs, where the platform has it: the temporaries are all in
// DEST/.rsx/tmp), then renames each into place. When the flush fails, or
// the platform has none, each is fsynced on its own, so that an error is
// told to the write it belongs to.
func (d *Dir) CommitBatch(ctx context.Context, ws []Writer) []error {
	errs := make([]error, len(ws))
	var own []*dirWriter
	var at []int
	for i, w := range ws {
		dw, ok := w.(*dirWriter)
		switch {
		case !ok || dw.d != d:
			errs[i] = w.Commit(ctx)
		case dw.done:
			errs[i] = fmt.Errorf("commit %s: already committed or abandoned", dw.path)
		default:
			dw.done = true
			own = append(own, dw)
			at = append(at, i)
		}
	}
	if len(own) == 0 {
		return errs
	}
	flushed := len(own) > 1 && syncFS(own[0].f) == nil
	for k, w := range own {
		if !flushed {
			if err := w.f.Sync(); err != nil {
				errs[at[k]] = w.fail("fsync", err)
				continue
			}
		}
		errs[at[k]] = w.place()
	}
	return errs
}

// place closes the durable temporary and renames it into place.
func (w *dirWriter) place() error {
	fail := w.fail
	if fi, err := w.f.Stat(); err == nil {
		w.mtime = fi.ModTime()
	}
	if err := w.f.Close(); err != nil {
		return fail("close", err)
	}
	parent := path.Dir(w.path)
	if err := w.d.mkdirs(parent); err != nil {
		var le *LinkError
		if errors.As(err, &le) {
			le.Path = w.path // the file's, not its folder's
		}
		return fail("create its folder", err)
	}
	err := w.rename(parent)
	if errors.Is(err, fs.ErrNotExist) {
		// Its folder was removed since it was made (by hand, or by a Remove
		// that emptied it): make it again.
		w.d.forget(parent)
		if err = w.d.mkdirs(parent); err == nil {
			err = w.rename(parent)
		}
	}
	if err != nil {
		w.d.root.Remove(w.tmp)
		return fmt.Errorf("commit %s: %w", w.path, err)
	}
	w.d.touch(parent)
	return nil
}

// rename moves the temporary to the file's place, in its folder parent:
// relative to the folders kept open where it can (renameFast), else
// through the root.
func (w *dirWriter) rename(parent string) error {
	if ok, err := w.d.renameFast(w.name, parent, path.Base(w.path)); ok {
		return err
	}
	return w.d.root.Rename(w.tmp, w.path)
}

func (w *dirWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.f.Close()
	if err := w.d.root.Remove(w.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("abandon the write of %s: %w", w.path, err)
	}
	return nil
}

func (w *dirWriter) Reject(context.Context) (string, error) {
	if w.done {
		return "", fmt.Errorf("keep the rejected bytes of %s: already committed or abandoned", w.path)
	}
	w.done = true
	w.f.Close()
	kept := ReservedDir + "/rejected/" + w.path
	if err := w.d.mkdirs(path.Dir(kept)); err != nil {
		w.d.root.Remove(w.tmp)
		return "", fmt.Errorf("keep the rejected bytes of %s: %w", w.path, err)
	}
	if err := w.d.root.Rename(w.tmp, kept); err != nil {
		w.d.root.Remove(w.tmp)
		return "", fmt.Errorf("keep the rejected bytes of %s: %w", w.path, err)
	}
	return filepath.Join(w.d.dir, filepath.FromSlash(kept)), nil
}

// mkdirs makes the folder p and its parents inside the root, noting the
// folders whose entries changed.
func (d *Dir) mkdirs(p string) error {
	if p == "." || p == "" {
		return nil
	}
	d.mu.Lock()
	known := d.made[p]
	d.mu.Unlock()
	if known {
		return nil
	}
	parts := strings.Split(p, "/")
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		err := d.root.Mkdir(sub, 0o755)
		switch {
		case err == nil:
			d.touch(path.Dir(sub))
		case errors.Is(err, fs.ErrExist):
			fi, serr := d.root.Lstat(sub)
			if serr != nil {
				return serr
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				return d.linkError(p, sub)
			}
			if !fi.IsDir() {
				return fmt.Errorf("%s is a file, not a folder", sub)
			}
		default:
			return err
		}
	}
	d.mu.Lock()
	d.made[p] = true
	d.mu.Unlock()
	return nil
}

// forget drops a folder and those inside it from the folders known to exist.
func (d *Dir) forget(folder string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for f := range d.made {
		if f == folder || strings.HasPrefix(f, folder+"/") || strings.HasPrefix(folder, f+"/") {
			delete(d.made, f)
		}
	}
	d.dropFoldersLocked(folder)
}

func (d *Dir) touch(folder string) {
	d.mu.Lock()
	d.dirty[folder] = true
	d.mu.Unlock()
}

// Sync fsyncs the folders whose entries changed since the last Sync.
func (d *Dir) Sync(context.Context) error {
	if d.readOnly {
		return nil
	}
	d.mu.Lock()
	dirty := d.dirty
	d.dirty = map[string]bool{}
	d.mu.Unlock()
	for folder := range dirty {
		f, err := d.root.Open(folder)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since (an emptied folder)
		}
		if err != nil {
			return fmt.Errorf("sync folder %s of %s: %w", folder, d.dir, err)
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return fmt.Errorf("sync folder %s of %s: %w", folder, d.dir, err)
		}
	}
	return nil
}

// Remove deletes a file, then the folders it leaves empty.
func (d *Dir) Remove(_ context.Context, p string) error {
	if err := CheckPath(p); err != nil {
		return fmt.Errorf("remove from %s: %w", d.dir, err)
	}
	if d.readOnly {
		return fmt.Errorf("remove %s from %s: %w", p, d.dir, ErrReadOnly)
	}
	if err := d.checkFolders(p); errors.Is(err, fs.ErrNotExist) {
		return nil // not there
	} else if err != nil {
		return fmt.Errorf("remove %s from %s: %w", p, d.dir, err)
	}
	if fi, err := d.root.Lstat(p); err == nil && fi.IsDir() {
		return fmt.Errorf("remove %s from %s: it is a folder", p, d.dir)
	}
	if err := d.root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s from %s: %w", p, d.dir, err)
	}
	parent := path.Dir(p)
	d.touch(parent)
	for parent != "." {
		if err := d.root.Remove(parent); err != nil {
			break // not empty, or gone
		}
		d.forget(parent)
		parent = path.Dir(parent)
		d.touch(parent)
	}
	return nil
}

// StatBatch describes the files at paths as Stat does each, calling fn once
// for each (in the order of their folders): the folder of a run of paths is
// opened once (os.Root.OpenRoot) and each file described relative to it,
// instead of every path being walked again from the top of DEST, the main
// cost of a reconcile's check of a large copy.
func (d *Dir) StatBatch(ctx context.Context, paths []string, fn func(i int, fi FileInfo, err error)) {
	order := make([]int, len(paths))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return path.Dir(paths[order[a]]) < path.Dir(paths[order[b]]) })
	var (
		cur    string
		sub    *os.Root
		subErr error
		opened bool
	)
	closeSub := func() {
		if sub != nil && sub != d.root {
			sub.Close()
		}
		sub, subErr, opened = nil, nil, false
	}
	defer closeSub()
	for _, i := range order {
		p := paths[i]
		if err := CheckPath(p); err != nil {
			fn(i, FileInfo{}, fmt.Errorf("stat in %s: %w", d.dir, err))
			continue
		}
		if parent := path.Dir(p); !opened || parent != cur {
			closeSub()
			cur, opened = parent, true
			switch err := d.checkFolders(p); {
			case err != nil:
				subErr = err
			case parent == ".":
				sub = d.root
			default:
				sub, subErr = d.root.OpenRoot(parent)
			}
		}
		if subErr != nil {
			fn(i, FileInfo{}, fmt.Errorf("stat %s in %s: %w", p, d.dir, subErr))
			continue
		}
		fi, err := sub.Lstat(path.Base(p))
		switch {
		case err != nil:
			fn(i, FileInfo{}, fmt.Errorf("stat %s in %s: %w", p, d.dir, err))
		case !fi.Mode().IsRegular():
			fn(i, FileInfo{}, fmt.Errorf("stat %s in %s: not a regular file", p, d.dir))
		default:
			fn(i, FileInfo{Path: p, Size: fi.Size(), ModTime: fi.ModTime()}, nil)
		}
	}
}

// Stat describes a file (not following a final symbolic link).
func (d *Dir) Stat(_ context.Context, p string) (FileInfo, error) {
	if err := CheckPath(p); err != nil {
		return FileInfo{}, fmt.Errorf("stat in %s: %w", d.dir, err)
	}
	if d.root == nil {
		return FileInfo{}, fmt.Errorf("stat %s in %s: %w", p, d.dir, fs.ErrNotExist)
	}
	if err := d.checkFolders(p); err != nil {
		return FileInfo{}, fmt.Errorf("stat %s in %s: %w", p, d.dir, err)
	}
	fi, err := d.root.Lstat(p)
	if err != nil {
		return FileInfo{}, fmt.Errorf("stat %s in %s: %w", p, d.dir, err)
	}
	if !fi.Mode().IsRegular() {
		return FileInfo{}, fmt.Errorf("stat %s in %s: not a regular file", p, d.dir)
	}
	return FileInfo{Path: p, Size: fi.Size(), ModTime: fi.ModTime()}, nil
}

// Open reads a regular file. It opens without blocking and refuses anything
// else: a named pipe put in the copy would otherwise hold an audit in open(2)
// for ever, where no context reaches it.
func (d *Dir) Open(_ context.Context, p string) (io.ReadCloser, error) {
	if err := CheckPath(p); err != nil {
		return nil, fmt.Errorf("open in %s: %w", d.dir, err)
	}
	if d.root == nil {
		return nil, fmt.Errorf("open %s in %s: %w", p, d.dir, fs.ErrNotExist)
	}
	if err := d.checkFolders(p); err != nil {
		return nil, fmt.Errorf("open %s in %s: %w", p, d.dir, err)
	}
	f, _, err := d.openIn(d.root, p, p)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// openIn opens the regular file name of the folder root, the file p of the
// destination: a link is not followed (it may lead into .rsx), a pipe is
// not opened at all, and a file replaced between the look and the opening
// is refused.
// It returns the file and what fstat said of it once opened.
func (d *Dir) openIn(root *os.Root, p, name string) (*os.File, fs.FileInfo, error) {
	lfi, err := root.Lstat(name)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s in %s: %w", p, d.dir, err)
	}
	if !lfi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("open %s in %s: not a regular file (%s)", p, d.dir, lfi.Mode().Type())
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s in %s: %w", p, d.dir, err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !os.SameFile(fi, lfi) {
		f.Close()
		if err == nil {
			err = errors.New("not a regular file, or replaced while opened")
		}
		return nil, nil, fmt.Errorf("open %s in %s: %w", p, d.dir, err)
	}
	return f, fi, nil
}

// NewFileOpener returns an opener of the destination's files that opens the
// folder of a file once (os.Root.OpenRoot, after the same check of its
// folders as Open) and each file relative to it while the files that
// follow share the folder: opening a file by its whole path from the top of
// DEST walks every folder of it again, twice (to look, then to open), most
// of what an audit's reading of small files costs.
func (d *Dir) NewFileOpener() FileOpener { return &dirOpener{d: d} }

// dirOpener is Dir's FileOpener: it keeps the folder of the last file
// open (openFolder, openHere and closeFolder are the system's: unix opens
// by descriptors).
type dirOpener struct {
	d         *Dir
	opened    bool   // folder and subErr describe a folder
	folder    string // relative to the destination
	subErr    error  // why the folder could not be opened
	openerSys        // the folder opened, as the system opens it
}

func (o *dirOpener) Open(_ context.Context, p string) (io.ReadCloser, error) {
	d := o.d
	if err := CheckPath(p); err != nil {
		return nil, fmt.Errorf("open in %s: %w", d.dir, err)
	}
	if d.root == nil {
		return nil, fmt.Errorf("open %s in %s: %w", p, d.dir, fs.ErrNotExist)
	}
	if parent := path.Dir(p); !o.opened || parent != o.folder {
		o.Close()
		o.folder, o.opened = parent, true
		if o.subErr = d.checkFolders(p); o.subErr == nil {
			o.subErr = o.openFolder(parent)
		}
	}
	if o.subErr != nil {
		return nil, fmt.Errorf("open %s in %s: %w", p, d.dir, o.subErr)
	}
	return o.openHere(p, path.Base(p))
}

// Close closes the folder kept open.
func (o *dirOpener) Close() error {
	err := o.closeFolder()
	o.subErr, o.opened = nil, false
	return err
}

// Walk lists every regular file but those of DEST/.rsx; symbolic links are
// not followed. Each folder is read a batch of entries at a time, in the
// order the file system gives them, so that a folder of a million files is
// never held in memory whole (fs.WalkDir reads and sorts each folder whole:
// at 800,000 files in one folder, some 250 MB).
func (d *Dir) Walk(ctx context.Context, fn func(FileInfo) error) error {
	if d.root == nil {
		return nil
	}
	if err := d.walk(ctx, ".", fn); err != nil {
		return fmt.Errorf("list the files of %s: %w", d.dir, err)
	}
	return nil
}

// walkBatch is how many entries of a folder Walk reads at once.
const walkBatch = 1024

// walk lists the files under the folder p (relative to the destination).
func (d *Dir) walk(ctx context.Context, p string, fn func(FileInfo) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := d.root.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		entries, rerr := f.ReadDir(walkBatch)
		for _, e := range entries {
			name := path.Join(p, e.Name())
			switch {
			case e.IsDir():
				if name == ReservedDir {
					continue
				}
				if err := d.walk(ctx, name, fn); err != nil {
					return err
				}
			case e.Type().IsRegular():
				fi, err := e.Info()
				if err != nil {
					return err
				}
				if err := fn(FileInfo{Path: name, Size: fi.Size(), ModTime: fi.ModTime()}); err != nil {
					return err
				}
			}
		}
		if errors.Is(rerr, io.EOF) {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// CountFiles counts the files Walk lists, reading each folder as Walk
// does but not describing each file (Walk's lstat of every file was most
// of its cost).
func (d *Dir) CountFiles(ctx context.Context) (int64, error) {
	if d.root == nil {
		return 0, nil
	}
	n, err := d.count(ctx, ".")
	if err != nil {
		return 0, fmt.Errorf("count the files of %s: %w", d.dir, err)
	}
	return n, nil
}

func (d *Dir) count(ctx context.Context, p string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	f, err := d.root.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var n int64
	for {
		entries, rerr := f.ReadDir(walkBatch)
		for _, e := range entries {
			switch {
			case e.IsDir():
				name := path.Join(p, e.Name())
				if name == ReservedDir {
					continue
				}
				k, err := d.count(ctx, name)
				if err != nil {
					return 0, err
				}
				n += k
			case e.Type().IsRegular():
				n++
			}
		}
		if errors.Is(rerr, io.EOF) {
			return n, nil
		}
		if rerr != nil {
			return 0, rerr
		}
	}
}

// LinkError is a resource's path that a symbolic link in DEST leads
// elsewhere: rsx writes, reads and removes nothing through a link, wherever
// it leads.
type LinkError struct {
	Path   string // the resource's path
	Link   string // the folder of the path that is a link
	Target string // what the link says
	// Leads is where the link leads: "into the destination's own folder
	// .rsx", "outside the destination", or "elsewhere in the copy".
	Leads string
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("path %q: its folder %q is a symbolic link (to %q, %s): rsx does not write through links, remove the link", e.Path, e.Link, e.Target, e.Leads)
}

// linkError describes the link at folder, a folder of the path p.
func (d *Dir) linkError(p, folder string) error {
	target, err := d.root.Readlink(folder)
	if err != nil {
		target = "?"
	}
	return &LinkError{Path: p, Link: folder, Target: target, Leads: d.leads(folder, target)}
}

// leads says where a link at folder (relative to the destination) with the
// target given leads, by its first step.
func (d *Dir) leads(folder, target string) string {
	const (
		into    = "into the destination's own folder " + ReservedDir
		outside = "outside the destination"
		inside  = "elsewhere in the copy"
	)
	var rel string
	if filepath.IsAbs(target) {
		r, err := filepath.Rel(d.dir, filepath.Clean(target))
		if err != nil {
			return outside
		}
		rel = filepath.ToSlash(r)
	} else {
		rel = path.Join(path.Dir(folder), filepath.ToSlash(target))
	}
	first, _, _ := strings.Cut(rel, "/")
	switch {
	case rel == ".." || strings.HasPrefix(rel, "../"):
		return outside
	case strings.EqualFold(first, ReservedDir):
		return into
	case rel == ".":
		return "to the destination itself"
	}
	return inside
}

// checkFolders checks that every folder of p is a folder, not a link. A
// folder that does not exist gives an error that wraps fs.ErrNotExist.
func (d *Dir) checkFolders(p string) error {
	parent := path.Dir(p)
	if parent == "." {
		return nil
	}
	d.mu.Lock()
	known := d.made[parent]
	d.mu.Unlock()
	if known {
		return nil
	}
	subs := pathmap.Parents(parent)
	for _, sub := range append(subs, parent) {
		fi, err := d.root.Lstat(sub)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return d.linkError(p, sub)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is a file, not a folder: %w", sub, fs.ErrNotExist)
		}
	}
	d.mu.Lock()
	d.made[parent] = true
	d.mu.Unlock()
	return nil
}

// ReservedError is a destination whose own folder, DEST/.rsx, holds a
// symbolic link or something else than the plain files and folders rsx
// keeps there: rsx refuses to use it, touching nothing.
type ReservedError struct {
	Dest, Path string // the destination, and the path in it
	What       string // what is wrong with it
}

func (e *ReservedError) Error() string {
	return fmt.Sprintf("destination %s: %s %s: rsx keeps its own files in %s and uses them only when they are plain files and folders; it changed nothing (move it away, or choose another DEST)",
		e.Dest, filepath.Join(e.Dest, filepath.FromSlash(e.Path)), e.What, ReservedDir)
}

// reservedKinds are the entries of DEST/.rsx whose kind rsx knows: true for
// a folder, false for a plain file.
var reservedKinds = map[string]bool{
	ReservedDir:               true,
	ReservedDir + "/tmp":      true,
	ReservedDir + "/rejected": true,
	TrashDir:                  true,
	ReservedDir + "/lock":     false,
	StateFile:                 false,
	StateFile + "-wal":        false,
	StateFile + "-shm":        false,
	StateFile + "-journal":    false,
}

// checkReserved refuses a DEST/.rsx that is, or holds, anything but plain
// files and folders (a symbolic link, a pipe, a device), or whose known
// entries are not of their kind: state.db or lock through a link would be
// written wherever the link leads, and tmp/, emptied at every start, would
// empty whatever it leads to. It only reads.
func (d *Dir) checkReserved() error {
	kind := func(fi fs.FileInfo) string {
		switch m := fi.Mode(); {
		case m&fs.ModeSymlink != 0:
			return "link"
		case m.IsDir():
			return "folder"
		case m.IsRegular():
			return "file"
		}
		return "other"
	}
	describe := func(p string, fi fs.FileInfo) string {
		switch kind(fi) {
		case "link":
			target, _ := d.root.Readlink(p)
			return fmt.Sprintf("is a symbolic link (to %q, %s)", target, d.leads(p, target))
		case "folder":
			return "is a folder"
		case "file":
			return "is a file"
		}
		return "is neither a file nor a folder (" + fi.Mode().Type().String() + ")"
	}
	fi, err := d.root.Lstat(ReservedDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("destination %s: %w", d.dir, err)
	}
	if kind(fi) != "folder" {
		return &ReservedError{Dest: d.dir, Path: ReservedDir, What: describe(ReservedDir, fi) + ", not a folder"}
	}
	err = fs.WalkDir(d.root.FS(), ReservedDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		k := kind(fi)
		if wantDir, known := reservedKinds[p]; known {
			if want := map[bool]string{true: "folder", false: "file"}[wantDir]; k != want {
				return &ReservedError{Dest: d.dir, Path: p, What: describe(p, fi) + ", not a " + want}
			}
			return nil
		}
		if k != "file" && k != "folder" {
			return &ReservedError{Dest: d.dir, Path: p, What: describe(p, fi)}
		}
		if k == "folder" && path.Dir(p) == TrashDir {
			// A run's folder of the trash: what it holds is only ever
			// listed (no link followed) and removed whole, and may be
			// many files, not read at every start.
			return fs.SkipDir
		}
		return nil
	})
	var re *ReservedError
	if errors.As(err, &re) {
		return re
	}
	if err != nil {
		return fmt.Errorf("destination %s: check %s: %w", d.dir, ReservedDir, err)
	}
	return nil
}
