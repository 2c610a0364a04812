package store

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestDirReadOnly: a folder opened read-only reads the copy, refuses writes,
// shares its lock with other readers but not with a writer, and makes
// nothing: no DEST/.rsx, no probe, no temporary.
func TestDirReadOnly(t *testing.T) {
	ctx := context.Background()
	d, dir := openDir(t)
	write(t, d, "a/b.txt", "hello")
	d.Close()
	os.RemoveAll(filepath.Join(dir, ReservedDir)) // a copy made elsewhere, without its state
	before, _ := os.ReadDir(dir)

	ro, err := OpenDir(dir, Options{ReadOnly: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if !ro.ReadOnly() || filepath.Dir(ro.TempDir()) == dir {
		t.Errorf("read-only %v, TempDir %s", ro.ReadOnly(), ro.TempDir())
	}
	l, err := ro.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := ro.StatePath(ctx); p != "" || err != nil {
		t.Errorf("StatePath of a folder without state: %q %v", p, err)
	}
	if fi, err := ro.Stat(ctx, "a/b.txt"); err != nil || fi.Size != 5 {
		t.Errorf("Stat %+v %v", fi, err)
	}
	r, err := ro.Open(ctx, "a/b.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	r.Close()
	n := 0
	ro.Walk(ctx, func(FileInfo) error { n++; return nil })
	if string(b) != "hello" || n != 1 {
		t.Errorf("read %q, walked %d", b, n)
	}
	if _, err := ro.Create(ctx, "c.txt", Meta{}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Create: %v", err)
	}
	if err := ro.Remove(ctx, "a/b.txt"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Remove: %v", err)
	}
	l.Release()
	if after, _ := os.ReadDir(dir); len(after) != len(before) {
		t.Errorf("entries %v, before %v", after, before)
	}

	// With a lock file (a copy of rsx): readers share it, a writer waits.
	w, err := OpenDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	wl, err := w.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var le *LockedError
	if _, err := ro.Lock(ctx); !errors.As(err, &le) || le.Holder.Token != wl.Holder.Token {
		t.Errorf("a reader beside a writer: %v", err)
	}
	wl.Release()
	l1, err := ro.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := ro.Lock(ctx)
	if err != nil {
		t.Errorf("two readers: %v", err)
	}
	if _, err := w.Lock(ctx); !errors.As(err, &le) {
		t.Errorf("a writer beside a reader: %v", err)
	}
	l1.Release()
	l2.Release()

	// A folder that does not exist: empty with Create (a dry run), an
	// error without; neither makes it.
	missing := filepath.Join(t.TempDir(), "none")
	e, err := OpenDir(missing, Options{ReadOnly: true, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if l, err := e.Lock(ctx); err != nil {
		t.Error(err)
	} else {
		l.Release()
	}
	if p, err := e.StatePath(ctx); p != "" || err != nil {
		t.Errorf("StatePath %q %v", p, err)
	}
	if _, err := e.Stat(ctx, "x"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat: %v", err)
	}
	if err := e.Walk(ctx, func(FileInfo) error { return errors.New("a file") }); err != nil {
		t.Error(err)
	}
	e.Close()
	if _, err := OpenDir(missing, Options{ReadOnly: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("without Create: %v", err)
	}
	if _, err := os.Lstat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the folder was made: %v", err)
	}
}

// TestDirDiscard: a run that did not start removes what its Open made, and
// nothing else.
func TestDirDiscard(t *testing.T) {
	ctx := context.Background()
	open := func(dir string) *Dir {
		t.Helper()
		d, err := OpenDir(dir, Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		l, err := d.Lock(ctx)
		if err != nil {
			t.Fatal(err)
		}
		l.Release()
		return d
	}
	// Made by Open: the folder goes.
	made := filepath.Join(t.TempDir(), "new")
	d := open(made)
	if err := d.Discard(); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := os.Lstat(made); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the folder made is still there: %v", err)
	}
	// A folder of the user's: only .rsx goes.
	mine := t.TempDir()
	os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("x"), 0o644)
	d = open(mine)
	d.Discard()
	d.Close()
	if entries, _ := os.ReadDir(mine); len(entries) != 1 || entries[0].Name() != "notes.txt" {
		t.Errorf("left %v", entries)
	}
	// A copy that had its .rsx: nothing goes.
	d = open(mine)
	d.Close()
	d = open(mine)
	d.Discard()
	d.Close()
	if _, err := os.Stat(filepath.Join(mine, ReservedDir, "lock")); err != nil {
		t.Errorf("an existing copy's .rsx was removed: %v", err)
	}
	// A .rsx another run holds now is kept.
	other := filepath.Join(t.TempDir(), "shared")
	d = open(other)
	d2, err := OpenDir(other, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := d2.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d.Discard()
	if _, err := os.Stat(filepath.Join(other, ReservedDir, "lock")); err != nil {
		t.Errorf("the .rsx of a run going on was removed: %v", err)
	}
	l.Release()
	d.Close()
	d2.Close()
}
