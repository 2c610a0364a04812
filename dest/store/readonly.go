package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode"
)

// ErrReadOnly is a write refused by a Store opened with Options.ReadOnly.
var ErrReadOnly = errors.New("the destination was opened read-only (an audit or a dry run)")

// ReadOnly reports whether the folder was opened with Options.ReadOnly.
func (d *Dir) ReadOnly() bool { return d.readOnly }

// Features: a folder, whose files keep their modification times.
func (d *Dir) Features() Features {
	return Features{ReadOnly: d.readOnly, ModTimes: true, Local: d.dir, Discard: d.Discard}
}

// openDirReadOnly opens a folder without making or changing anything in it:
// no DEST/.rsx, no probe file; a folder that does not exist is an empty
// destination (opts.Create) or an error.
func openDirReadOnly(dir, abs string, opts Options) (*Dir, error) {
	tmp := opts.TempDir
	if tmp == "" {
		tmp = os.TempDir()
	}
	d := &Dir{dir: abs, readOnly: true, tempDir: tmp, made: map[string]bool{}, dirty: map[string]bool{}}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) && opts.Create:
		d.foldCase = caseInsensitiveByDefault()
		return d, nil
	case err != nil:
		return nil, fmt.Errorf("destination %s: %w", dir, err)
	case !fi.IsDir():
		return nil, fmt.Errorf("destination %s is not a folder", dir)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("destination %s: %w", dir, err)
	}
	if d.root, err = os.OpenRoot(real); err != nil {
		return nil, fmt.Errorf("destination %s: %w", dir, err)
	}
	d.dir = real
	if err := d.checkReserved(); err != nil {
		d.root.Close()
		return nil, err
	}
	d.foldCase = d.probeCaseReadOnly()
	return d, nil
}

// caseInsensitiveByDefault is what the usual file system of the platform does.
func caseInsensitiveByDefault() bool {
	return runtime.GOOS == "darwin" || runtime.GOOS == "windows"
}

// probeCaseReadOnly finds out whether the file system ignores case without
// writing: a name found in the folder is looked up with its case swapped.
// Without a name to try, the platform's default is taken.
func (d *Dir) probeCaseReadOnly() bool {
	f, err := d.root.Open(".")
	if err != nil {
		return caseInsensitiveByDefault()
	}
	defer f.Close()
	names, _ := f.Readdirnames(64)
	for _, name := range names {
		swapped := strings.Map(func(r rune) rune {
			if unicode.IsUpper(r) {
				return unicode.ToLower(r)
			}
			return unicode.ToUpper(r)
		}, name)
		if swapped == name {
			continue
		}
		if _, err := d.root.Lstat(swapped); err == nil {
			// Both spellings answer: the same file, unless both exist.
			return !slices.Contains(names, swapped)
		}
		return false
	}
	return caseInsensitiveByDefault()
}

// lockReadOnly takes a shared lock on DEST/.rsx/lock, opened for reading:
// read-only runs (audits, dry runs) may go on together, never beside a run
// that writes. Without a lock file (no run has written here) there is
// nothing to take.
func (d *Dir) lockReadOnly() (*Lock, error) {
	l := &Lock{Holder: newHolder(time.Now())}
	if d.root == nil {
		return l, nil
	}
	f, err := d.root.OpenFile(ReservedDir+"/lock", os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lock destination %s for reading: %w", d.dir, err)
	}
	where := filepath.Join(d.dir, ReservedDir, "lock")
	if err := lockFileShared(f); err != nil {
		prev, _ := io.ReadAll(io.LimitReader(f, 4096))
		f.Close()
		if errors.Is(err, errLocked) {
			h, _ := decodeHolder(prev)
			return nil, &LockedError{Dest: d.dir, Holder: h, Where: where}
		}
		return nil, fmt.Errorf("lock destination %s for reading: %w", d.dir, err)
	}
	l.release = func() error {
		unlockFile(f)
		return f.Close()
	}
	return l, nil
}

// Discard removes what Open made in the destination — its DEST/.rsx, and
// the folder itself when Open made it and it is empty again — when a run
// stops before writing anything of a copy, so that a run that could not
// start leaves nothing that looks like a copy. Call it after the Session is
// closed (its lock released, its state closed) and before Close.
func (d *Dir) Discard() error {
	if d.readOnly || d.root == nil || !d.madeReserved {
		return nil
	}
	// Another run may have found the folder this Open made and be using it
	// now: remove it only while holding its lock.
	f, err := d.root.OpenFile(ReservedDir+"/lock", os.O_RDWR, 0)
	if err == nil {
		defer f.Close()
		if err := lockFile(f); err != nil {
			return nil // in use: no longer ours alone
		}
		defer unlockFile(f)
		if b, _ := io.ReadAll(io.LimitReader(f, 4096)); len(b) > 0 {
			return nil // a run has held it since, and not released it cleanly
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s of a run that did not start: %w", filepath.Join(d.dir, ReservedDir), err)
	}
	if err := d.root.RemoveAll(ReservedDir); err != nil {
		return fmt.Errorf("remove %s of a run that did not start: %w", filepath.Join(d.dir, ReservedDir), err)
	}
	if d.madeDir {
		if err := os.Remove(d.dir); err != nil && !errors.Is(err, fs.ErrExist) && !isNotEmpty(err) {
			return fmt.Errorf("remove %s, made by a run that did not start: %w", d.dir, err)
		}
	}
	return nil
}
