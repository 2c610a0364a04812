// Package scratch keeps rsx's temporary files in one folder per user, a folder per process inside it, and removes those of processes that no longer live.
//
// A download of a dump package can take gigabytes of temporary space. A
// command stopped by a signal removes its own folder on the way out; one
// killed outright (SIGKILL, a crash, a power cut) cannot, so every later run
// sweeps the folders of processes that are gone. A process folder is named
// after its owner, "<pid>-<start>-<random>", where start is the process's
// start time as the system counts it (clock ticks since boot on Linux, "0"
// where it cannot be read); the owner also holds a lock on the file .lock
// inside it for as long as it lives. A folder is removed only when both say
// that its owner is gone: no process has that pid (or the one that has it
// started at another time, so the pid was reused), and its lock is free.
//
// Temporary files that must sit beside their destination, such as a file
// being extracted (renamed into place once verified), carry the same owner
// name (Self) so that OwnerGone can tell whether they are stale.
package scratch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockName is the file a process folder's owner holds locked.
const lockName = ".lock"

// Root returns the per-user folder for rsx's temporary files, creating it
// (mode 0700) if needed: "rsx/tmp" under the user's cache directory
// (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux), which is the
// user's own and sits on the disk rather than in a memory-backed /tmp; or,
// when there is none, "rsx-<uid>" under os.TempDir(), which must then be a
// directory of the user's own, not a symbolic link.
func Root() (string, error) {
	dir, inCache := rootPath()
	if inCache {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("temporary folder %s: %w", dir, err)
		}
		if err := ownedPrivateDir(dir); err != nil {
			return "", err
		}
		return dir, nil
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("temporary folder %s: %w", dir, err)
	}
	if err := ownedPrivateDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// rootPath is where Root puts the folder, and whether that is under the
// user's cache directory.
func rootPath() (string, bool) {
	if cache, err := os.UserCacheDir(); err == nil && cache != "" {
		return filepath.Join(cache, "rsx", "tmp"), true
	}
	return filepath.Join(os.TempDir(), "rsx-"+strconv.Itoa(os.Getuid())), false
}

// SweepRoot sweeps the folder Root would give, when it exists and is the
// user's own, without creating anything: what every run of rsx does first,
// so that the leftovers of killed runs do not wait for the next download.
func SweepRoot() ([]string, error) {
	dir, _ := rootPath()
	if _, err := os.Lstat(dir); err != nil {
		return nil, nil
	}
	if err := ownedPrivateDir(dir); err != nil {
		return nil, err
	}
	return Sweep(dir)
}

// Dir is the temporary folder of the running process.
type Dir struct {
	path string
	lock *os.File
}

// Open sweeps root (Sweep) and creates the folder of this process in it.
// Close removes it with everything in it.
func Open(root string) (*Dir, error) {
	_, _ = Sweep(root)
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	path := filepath.Join(root, Self()+"-"+hex.EncodeToString(rnd[:]))
	if err := os.Mkdir(path, 0o700); err != nil {
		return nil, fmt.Errorf("temporary folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(path, lockName), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		err = lockFile(f)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		os.RemoveAll(path)
		return nil, fmt.Errorf("temporary folder %s: %w", path, err)
	}
	return &Dir{path: path, lock: f}, nil
}

// Path is the folder's path.
func (d *Dir) Path() string { return d.path }

// Close removes the folder and everything in it. It may be called more than
// once.
func (d *Dir) Close() error {
	if d == nil || d.lock == nil {
		return nil
	}
	err := os.RemoveAll(d.path)
	d.lock.Close() // after the removal: the lock guards the folder to its end
	d.lock = nil
	return err
}

// Sweep removes the folders in root whose owner is gone and returns their
// paths. Entries it does not recognise as process folders are left alone.
func Sweep(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var removed []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		owner, ok := folderOwner(e.Name())
		if !ok || !OwnerGone(owner) {
			continue
		}
		path := filepath.Join(root, e.Name())
		if !lockFree(filepath.Join(path, lockName)) {
			continue
		}
		if err := os.RemoveAll(path); err == nil {
			removed = append(removed, path)
		}
	}
	return removed, nil
}

// Self is the owner name of the running process: "<pid>-<start>".
func Self() string {
	return strconv.Itoa(os.Getpid()) + "-" + startTime(os.Getpid())
}

// OwnerGone tells whether the process an owner name (as Self gives it)
// designates no longer lives: no process has its pid, or the process that
// has it started at another time. It answers false for a name it cannot
// read, and when it cannot tell.
func OwnerGone(owner string) bool {
	p, start, ok := strings.Cut(owner, "-")
	pid, err := strconv.Atoi(p)
	if !ok || err != nil || pid <= 0 || start == "" {
		return false
	}
	if !processExists(pid) {
		return true
	}
	if start == "0" {
		return false // the owner's start time was not known: the pid decides
	}
	now := startTime(pid)
	return now != "0" && now != start
}

// folderOwner reads "<pid>-<start>" from a folder name "<pid>-<start>-<random>".
func folderOwner(name string) (string, bool) {
	parts := strings.Split(name, "-")
	if len(parts) != 3 {
		return "", false
	}
	for _, p := range parts {
		if p == "" {
			return "", false
		}
	}
	if _, err := strconv.Atoi(parts[0]); err != nil {
		return "", false
	}
	if _, err := strconv.ParseUint(parts[1], 10, 64); err != nil {
		return "", false
	}
	return parts[0] + "-" + parts[1], true
}
