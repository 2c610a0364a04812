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
	"strings"
	"sync"
	"syscall"
	"time"
)

// Dir is a destination folder. Every file operation goes through an os.Root
// opened on it, so no path, and no symbolic link met on the way, can reach
// outside it (a link that leads out, or an absolute one, is refused).
//
// A write goes to a temporary file in DEST/.rsx/tmp (the same file system),
// which Commit fsyncs and renames into place; Sync then fsyncs the folders
// whose entries changed. A write abandoned, rejected or interrupted leaves the
// old file as it was.
type Dir struct {
	dir      string // absolute, symbolic links resolved
	root     *os.Root
	foldCase bool

	mu    sync.Mutex
	made  map[string]bool // folders known to exist
	dirty map[string]bool // folders whose entries changed since the last Sync
}

// OpenDir opens a destination folder (creating it with opts.Create).
func OpenDir(dir string, opts Options) (*Dir, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("destination %s: %w", dir, err)
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) && opts.Create {
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, fmt.Errorf("create destination %s: %w", dir, err)
		}
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
	d := &Dir{dir: real, root: root, made: map[string]bool{}, dirty: map[string]bool{}}
	if err := root.MkdirAll(ReservedDir+"/tmp", 0o755); err != nil {
		root.Close()
		return nil, fmt.Errorf("destination %s: create %s: %w", dir, ReservedDir+"/tmp", err)
	}
	if d.foldCase, err = d.probeCase(); err != nil {
		root.Close()
		return nil, err
	}
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

// TempDir is DEST/.rsx/tmp.
func (d *Dir) TempDir() string { return filepath.Join(d.dir, ReservedDir, "tmp") }

// Close closes the folder.
func (d *Dir) Close() error { return d.root.Close() }

// StatePath is DEST/.rsx/state.db.
func (d *Dir) StatePath(context.Context) (string, error) {
	return filepath.Join(d.dir, filepath.FromSlash(StateFile)), nil
}

// PublishState does nothing: the state lives in the folder already.
func (d *Dir) PublishState(context.Context, string) error { return nil }

// Lock takes DEST/.rsx/lock (see lockFile) and empties DEST/.rsx/tmp.
func (d *Dir) Lock(ctx context.Context) (*Lock, error) {
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
		// An empty lock file is a lock released cleanly: the next run knows
		// it takes over nothing.
		err := rewrite(f, nil)
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
	tmp := ReservedDir + "/tmp/" + randomName()
	f, err := d.root.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("write %s: create a temporary file: %w", p, err)
	}
	return &dirWriter{tempWrite: tempWrite{path: p, f: f}, d: d, tmp: tmp}, nil
}

type dirWriter struct {
	tempWrite
	d     *Dir
	tmp   string    // the temporary's path inside the root
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
		return fail("create its folder", err)
	}
	err := w.d.root.Rename(w.tmp, w.path)
	if errors.Is(err, fs.ErrNotExist) {
		// Its folder was removed since it was made (by hand, or by a Remove
		// that emptied it): make it again.
		w.d.forget(parent)
		if err = w.d.mkdirs(parent); err == nil {
			err = w.d.root.Rename(w.tmp, w.path)
		}
	}
	if err != nil {
		w.d.root.Remove(w.tmp)
		return fmt.Errorf("commit %s: %w", w.path, err)
	}
	w.d.touch(parent)
	return nil
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
			fi, serr := d.root.Stat(sub)
			if serr != nil {
				return serr
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
}

func (d *Dir) touch(folder string) {
	d.mu.Lock()
	d.dirty[folder] = true
	d.mu.Unlock()
}

// Sync fsyncs the folders whose entries changed since the last Sync.
func (d *Dir) Sync(context.Context) error {
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

// Stat describes a file (not following a final symbolic link).
func (d *Dir) Stat(_ context.Context, p string) (FileInfo, error) {
	if err := CheckPath(p); err != nil {
		return FileInfo{}, fmt.Errorf("stat in %s: %w", d.dir, err)
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
	f, err := d.root.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s in %s: %w", p, d.dir, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = errors.New("not a regular file")
		}
		return nil, fmt.Errorf("open %s in %s: %w", p, d.dir, err)
	}
	return f, nil
}

// Walk lists every regular file but those of DEST/.rsx; symbolic links are
// not followed.
func (d *Dir) Walk(ctx context.Context, fn func(FileInfo) error) error {
	err := fs.WalkDir(d.root.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p == ReservedDir {
				return fs.SkipDir
			}
			return ctx.Err()
		}
		if !e.Type().IsRegular() {
			return nil
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		return fn(FileInfo{Path: p, Size: fi.Size(), ModTime: fi.ModTime()})
	})
	if err != nil {
		return fmt.Errorf("list the files of %s: %w", d.dir, err)
	}
	return nil
}
