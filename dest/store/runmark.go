package store

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// A run marker proves that a bucket lock's holder has ended, without trusting
// a host name and a process id (which do not identify a process across PID
// namespaces). While it holds the lock, a run keeps the file CACHE/runs/TOKEN
// locked with flock, which the kernel frees when the process ends however it
// ends. Another run that finds the bucket locked by TOKEN, and the marker
// in its own cache folder, unlocked, and written under the same kernel boot,
// knows that run has ended. Runs that do not share the cache folder and the
// kernel (other machines, containers with folders of their own) find no
// marker, and wait for the lock to go stale.

// bootID names this kernel's boot (Linux); "" where unknown, and then no
// marker is trusted.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// markerPath is the marker of the run token in cache, or "" for a token that
// is no plain name.
func markerPath(cache, token string) string {
	if token == "" || len(token) > 64 || strings.Trim(token, "0123456789abcdefABCDEF-") != "" {
		return ""
	}
	return filepath.Join(cache, "runs", token)
}

// runMarker is this run's marker, held while it holds the lock.
type runMarker struct {
	f    *os.File
	path string
}

// holdRunMarker makes and locks this run's marker. It must be held before
// the lock object names the run: a marker found unlocked is a run ended.
// nil (no error) where markers cannot be trusted.
func holdRunMarker(cache, token string) (*runMarker, error) {
	boot, p := bootID(), markerPath(cache, token)
	if !kernelLocks || boot == "" || p == "" {
		return nil, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	removeOtherBoots(filepath.Dir(p), boot)
	// Locked before it has its name, so that no one finds it unlocked.
	f, err := os.CreateTemp(filepath.Dir(p), ".new-")
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if _, err := f.WriteString(boot); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if err := os.Rename(f.Name(), p); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &runMarker{f: f, path: p}, nil
}

func (m *runMarker) release() {
	if m == nil {
		return
	}
	os.Remove(m.path)
	unlockFile(m.f)
	m.f.Close()
}

// runEnded reports whether the run token held its marker in cache under this
// kernel's boot and has ended (the marker is no longer locked); the marker is
// then removed.
func runEnded(cache, token string) bool {
	boot, p := bootID(), markerPath(cache, token)
	if !kernelLocks || boot == "" || p == "" {
		return false
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 128))
	if err != nil || string(b) != boot {
		return false
	}
	if lockFile(f) != nil {
		return false // held: the run goes on
	}
	os.Remove(p)
	unlockFile(f)
	return true
}

// removeOtherBoots removes the markers of runs of an earlier boot: they
// ended with it, and prove nothing under this one.
func removeOtherBoots(dir, boot string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".new-") {
			continue // being made by a run now
		}
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err == nil && len(b) > 0 && string(b) != boot {
			os.Remove(p)
		}
	}
}
