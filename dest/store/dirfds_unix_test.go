//go:build unix

package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// openFDCount is how many descriptors the process holds (-1 where
// /proc/self/fd does not tell).
func openFDCount(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// commitAll writes each path with its own name as content and commits
// them together, as the engine does.
func commitAll(t *testing.T, d *Dir, paths []string) {
	t.Helper()
	ctx := context.Background()
	var ws []Writer
	for _, p := range paths {
		w, err := d.Create(ctx, p, Meta{})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, p)
		ws = append(ws, w)
	}
	for i, err := range d.CommitBatch(ctx, ws) {
		if err != nil {
			t.Fatalf("commit %s: %v", paths[i], err)
		}
	}
}

// A Dir makes its temporaries and renames them into place relative to the
// folders it keeps open (one openat and one renameat a file, not eight of
// each through os.Root): the folders written into are kept, at most
// maxFolderFDs of them, and closing the Dir closes every one.
func TestDirKeepsItsFoldersOpenForWrites(t *testing.T) {
	before := openFDCount(t)
	dir := filepath.Join(t.TempDir(), "dest")
	d, err := OpenDir(dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.fds == nil {
		t.Fatal("no folders kept open: every write goes through os.Root")
	}
	commitAll(t, d, []string{"h/a/1", "h/a/2", "h/a/3", "top"})
	d.mu.Lock()
	_, a := d.fds.folders["h/a"]
	_, top := d.fds.folders["."]
	d.mu.Unlock()
	if !a || !top {
		t.Errorf("folders kept: h/a %v, the top %v; want both", a, top)
	}
	var many []string
	for i := range 2 * maxFolderFDs {
		many = append(many, fmt.Sprintf("m/%d/x", i))
	}
	commitAll(t, d, many)
	d.mu.Lock()
	n := len(d.fds.folders)
	d.mu.Unlock()
	if n > maxFolderFDs {
		t.Errorf("%d folders kept open, want at most %d", n, maxFolderFDs)
	}
	for _, p := range append(many, "h/a/1", "h/a/2", "h/a/3", "top") {
		if got := read(t, d, p); got != p {
			t.Errorf("%s reads %q", p, got)
		}
	}
	if n := tmpCount(t, d.String()); n != 0 {
		t.Errorf("%d temporaries left", n)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if after := openFDCount(t); before >= 0 && after != before {
		t.Errorf("descriptors: %d before OpenDir, %d after Close", before, after)
	}
}

// A folder kept open that is removed, or replaced, after its first write is
// made again, or refused, at the next write as before: the file is never
// renamed into a folder no longer in the copy, nor through a link put where
// the folder was.
func TestDirKeptFolderRemovedOrReplaced(t *testing.T) {
	ctx := context.Background()
	d, dir := openDir(t)
	outside := t.TempDir()

	// Removed by the Dir itself (its last file removed), then written again.
	write(t, d, "r/x", "x")
	if err := d.Remove(ctx, "r/x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "r")); !os.IsNotExist(err) {
		t.Fatalf("r not removed with its last file: %v", err)
	}
	write(t, d, "r/y", "y")
	if got := read(t, d, "r/y"); got != "y" {
		t.Errorf("r/y reads %q", got)
	}

	// Removed behind the Dir's back, and made again by someone else: the
	// write lands in the folder that is there now.
	write(t, d, "h/b/x", "x")
	if err := os.RemoveAll(filepath.Join(dir, "h", "b")); err != nil {
		t.Fatal(err)
	}
	write(t, d, "h/c/x", "x") // another folder meanwhile
	if err := os.Mkdir(filepath.Join(dir, "h", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, d, "h/b/y", "y")
	if b, err := os.ReadFile(filepath.Join(dir, "h", "b", "y")); err != nil || string(b) != "y" {
		t.Errorf("h/b/y in the folder made again: %q, %v", b, err)
	}
	// Removed and not made again: made by the write.
	if err := os.RemoveAll(filepath.Join(dir, "h", "b")); err != nil {
		t.Fatal(err)
	}
	write(t, d, "h/b/z", "z")
	if got := read(t, d, "h/b/z"); got != "z" {
		t.Errorf("h/b/z reads %q", got)
	}

	// Replaced by a link that leads out: refused, nothing written there.
	write(t, d, "h/l/x", "x")
	if err := os.RemoveAll(filepath.Join(dir, "h", "l")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "h", "l")); err != nil {
		t.Fatal(err)
	}
	w, err := d.Create(ctx, "h/l/y", Meta{})
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "y")
	var le *LinkError
	if err := w.Commit(ctx); !errors.As(err, &le) {
		t.Errorf("written where a link replaced its folder: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside: %v", entries)
	}
	if n := tmpCount(t, dir); n != 0 {
		t.Errorf("%d temporaries left", n)
	}
}
