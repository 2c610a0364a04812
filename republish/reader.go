package republish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"rsx/dest/state"
	"rsx/dest/store"
)

// view is one consistent view of the state (state.Frozen) and what frees it.
type view struct {
	f     *state.Frozen
	once  sync.Once
	close func()
}

func newView(f *state.Frozen, free func()) *view {
	v := &view{f: f}
	v.close = func() {
		v.once.Do(func() {
			f.Close()
			if free != nil {
				free()
			}
		})
	}
	return v
}

// stateReader gives views of a destination's state, writing nothing in the
// destination.
type stateReader interface {
	// next returns a view of the state when it may have changed since the
	// last one it returned (nil when it has not).
	next(ctx context.Context) (*view, error)
	// over tells whether a run the state records without an end is over
	// (no process holds the destination), and its last file's time.
	over(ctx context.Context, f *state.Frozen) endOf
	// again makes the next call give a view even when the state did not
	// change: a run without an end is looked at again.
	again()
	// private copies v (a read transaction on the state a run writes) into
	// a file of the reader's own, so that the state's log can be let go; nil
	// when v is one already.
	private(ctx context.Context, v *view) (*view, error)
	close()
}

// folderReader reads the state of a folder, DEST/.rsx/state.db. While no
// process has it open (no log beside it) nothing can change it, and a copy
// of the file is read; while one has (a run, a --follow), it is read as a
// reader of SQLite's log, a transaction of its own at each generation.
type folderReader struct {
	dir, path, tmp string

	shared *state.DB
	watch  *state.Watcher
	// the last copy's file as it was (size, time): a copy is made again
	// only when it changed (or, asked again, after recopy)
	copied   os.FileInfo
	copiedAt time.Time
	recheck  bool
	seq      int
}

// recopy is how long a state copied whole is read again from its copy
// before a run without an end is looked at again in a new one.
const recopy = 30 * time.Second

func newFolderReader(dir, tmp string) *folderReader {
	return &folderReader{dir: dir, path: filepath.Join(dir, filepath.FromSlash(store.StateFile)), tmp: tmp}
}

func (r *folderReader) next(ctx context.Context) (*view, error) {
	if r.shared == nil {
		if _, err := os.Stat(r.path + "-wal"); err == nil {
			db, err := state.OpenShared(ctx, r.path)
			switch {
			case errors.Is(err, state.ErrNoLog):
				// closed meanwhile: a copy below
			case err != nil:
				return nil, err
			default:
				w, err := db.Watch(ctx)
				if err != nil {
					db.Close()
					return nil, err
				}
				r.shared, r.watch = db, w
			}
		}
	}
	if r.shared != nil {
		// Once open, the reader keeps the log there: a run that closes the
		// state leaves it to the reader.
		changed, err := r.watch.Changed(ctx)
		if err != nil || !changed {
			return nil, err
		}
		f, err := r.shared.Freeze(ctx, true)
		if err != nil {
			return nil, err
		}
		return newView(f, nil), nil
	}
	return r.copyState(ctx)
}

// copyState copies the state that no process has open into a file of its
// own, when it changed since the last copy: a copy during which a process
// opened it (a log appeared, or the file changed) is thrown away.
func (r *folderReader) copyState(ctx context.Context) (*view, error) {
	fi, err := os.Stat(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no copy in %s: it has no state (%s)", r.dir, store.StateFile)
	}
	if err != nil {
		return nil, err
	}
	if r.copied != nil && sameFile(r.copied, fi) && !(r.recheck && time.Since(r.copiedAt) > recopy) {
		return nil, nil
	}
	r.recheck = false
	r.seq++
	dst := filepath.Join(r.tmp, "state-"+strconv.Itoa(r.seq)+".db")
	if err := copyFile(r.path, dst); err != nil {
		os.Remove(dst)
		return nil, fmt.Errorf("copy the state of %s: %w", r.dir, err)
	}
	after, err := os.Stat(r.path)
	_, walErr := os.Stat(r.path + "-wal")
	if err != nil || !sameFile(fi, after) || walErr == nil {
		os.Remove(dst)
		return nil, nil // opened meanwhile: read it as it is written, next time
	}
	db, err := state.OpenReadOnly(ctx, dst)
	if err != nil {
		os.Remove(dst)
		return nil, err
	}
	f, err := db.Freeze(ctx, false)
	if err != nil {
		db.Close()
		os.Remove(dst)
		return nil, err
	}
	r.copied, r.copiedAt = fi, time.Now()
	return newView(f, func() { db.Close(); os.Remove(dst) }), nil
}

func sameFile(a, b os.FileInfo) bool {
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && os.SameFile(a, b)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// over: a run without an end is over when no process holds the folder's
// lock; flock cannot be asked without being taken (which would stop a run
// starting then), so the lock file is read: it is emptied when released,
// and names the process that holds it (on another host, or a live one,
// the run may go on).
func (r *folderReader) over(ctx context.Context, f *state.Frozen) endOf {
	return func(run *state.Run) (time.Time, bool) {
		if !r.lockFree() {
			return time.Time{}, false
		}
		return lastFileTime(ctx, f, run)
	}
}

// lockFree reports whether no process holds the folder's lock.
func (r *folderReader) lockFree() bool {
	b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(store.ReservedDir+"/lock")))
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(b) == 0) {
		return true
	}
	var h store.Holder
	if err != nil || json.Unmarshal(b, &h) != nil || h.PID <= 0 {
		return false
	}
	host, _ := os.Hostname()
	if h.Host != host {
		return false
	}
	p, err := os.FindProcess(h.PID)
	if err != nil {
		return true
	}
	return errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// lastFileTime is the end of a run over without having recorded one: its
// last file's time, or its start.
func lastFileTime(ctx context.Context, f *state.Frozen, run *state.Run) (time.Time, bool) {
	t, err := f.LastFileAt(ctx, run.ID)
	if err != nil {
		return time.Time{}, false
	}
	return later(t, run.Started), true
}

func (r *folderReader) private(ctx context.Context, v *view) (*view, error) {
	if !v.f.Shared() {
		return nil, nil
	}
	r.seq++
	dst := filepath.Join(r.tmp, "state-"+strconv.Itoa(r.seq)+".db")
	if err := v.f.CopyTo(ctx, dst); err != nil {
		return nil, err
	}
	db, err := state.OpenReadOnly(ctx, dst)
	if err != nil {
		os.Remove(dst)
		return nil, err
	}
	f, err := db.Freeze(ctx, false)
	if err != nil {
		db.Close()
		os.Remove(dst)
		return nil, err
	}
	return newView(f, func() { db.Close(); os.Remove(dst) }), nil
}

func (r *folderReader) again() {
	if r.watch != nil {
		r.watch.Reset()
	}
	r.recheck = true
}

func (r *folderReader) close() {
	if r.watch != nil {
		r.watch.Close()
	}
	if r.shared != nil {
		r.shared.Close()
	}
}
