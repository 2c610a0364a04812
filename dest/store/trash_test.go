package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// trashStore is a Store that is also a Trasher and a FolderWalker: both
// stores are.
type trashStore interface {
	Store
	Trasher
	FolderWalker
}

// testTrash moves files of a store to the trash, lists and empties it, and
// lists folders, as a sync with --delete and rsx trash do.
func testTrash(t *testing.T, s trashStore) {
	ctx := context.Background()
	for _, p := range []string{"h/keep.txt", "h/a/stray.txt", "h/a/b/deep.txt", "h/ab.txt", "other/x.txt"} {
		write(t, s, p, "bytes of "+p)
	}
	walked := func(folder string) []string {
		t.Helper()
		var got []string
		if err := s.WalkFolder(ctx, folder, func(fi FileInfo) error { got = append(got, fi.Path); return nil }); err != nil {
			t.Fatalf("walk %q: %v", folder, err)
		}
		slices.Sort(got)
		return got
	}
	if got := walked("h/a"); !slices.Equal(got, []string{"h/a/b/deep.txt", "h/a/stray.txt"}) {
		t.Errorf("walk h/a: %q", got)
	}
	if got := walked("nowhere"); len(got) != 0 {
		t.Errorf("walk of a folder that does not exist: %q", got)
	}
	if got := walked(""); len(got) != 5 {
		t.Errorf("walk of the whole copy: %q", got)
	}

	t0 := time.Date(2026, 11, 27, 17, 2, 11, 0, time.UTC)
	name := TrashName(t0, 42)
	if name != "20261127T170211Z-run-42" {
		t.Errorf("trash folder name %q", name)
	}
	if at, ok := TrashTime(name); !ok || !at.Equal(t0) {
		t.Errorf("time of %q: %v %v", name, at, ok)
	}
	for _, p := range []string{"h/a/stray.txt", "h/a/b/deep.txt"} {
		if err := s.Trash(ctx, name, p); err != nil {
			t.Fatalf("trash %s: %v", p, err)
		}
	}
	if err := s.Trash(ctx, name, "h/gone.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("trash of a missing file: %v", err)
	}
	for _, bad := range []string{"", "..", "a/b"} {
		if err := s.Trash(ctx, bad, "h/keep.txt"); err == nil {
			t.Errorf("trash folder %q accepted", bad)
		}
	}
	if err := s.Trash(ctx, name, ".rsx/state.db"); err == nil {
		t.Error("a file of .rsx moved to the trash")
	}
	if got := walked("h"); !slices.Equal(got, []string{"h/ab.txt", "h/keep.txt"}) {
		t.Errorf("the copy after the trash: %q", got)
	}
	later := TrashName(t0.Add(time.Hour), 43)
	if err := s.Trash(ctx, later, "h/ab.txt"); err != nil {
		t.Fatal(err)
	}
	folders, err := s.TrashFolders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(folders) != 2 || folders[0].Name != name || folders[0].Files != 2 || folders[0].Bytes != int64(len("bytes of h/a/stray.txt")+len("bytes of h/a/b/deep.txt")) ||
		!folders[0].Time.Equal(t0) || folders[1].Name != later || folders[1].Files != 1 {
		t.Errorf("trash folders: %+v", folders)
	}
	var trashed []string
	if err := s.EachTrashed(ctx, name, func(fi FileInfo) error { trashed = append(trashed, fi.Path); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(trashed)
	if !slices.Equal(trashed, []string{"h/a/b/deep.txt", "h/a/stray.txt"}) {
		t.Errorf("in the trash folder: %q", trashed)
	}
	if err := s.EmptyTrash(ctx, name); err != nil {
		t.Fatal(err)
	}
	if folders, err = s.TrashFolders(ctx); err != nil || len(folders) != 1 || folders[0].Name != later {
		t.Errorf("trash after emptying one folder: %+v %v", folders, err)
	}
	// The trash is no part of the copy.
	if got := walked(""); !slices.Equal(got, []string{"h/keep.txt", "other/x.txt"}) {
		t.Errorf("the copy: %q", got)
	}
}

func TestDirTrash(t *testing.T) {
	d, dir := openDir(t)
	testTrash(t, d)
	// The folders a file moved out of left empty are gone, as Remove
	// leaves them; the trash's folder stays checked at the next start.
	if _, err := os.Stat(filepath.Join(dir, "h", "a")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("h/a after its files went to the trash: %v", err)
	}
	d.Close()
	if d2, err := OpenDir(dir, Options{}); err != nil {
		t.Errorf("open with a trash: %v", err)
	} else {
		d2.Close()
	}
}

// Nothing is moved, nor listed, through a symbolic link of the copy.
func TestDirTrashRefusesLinks(t *testing.T) {
	d, dir := openDir(t)
	ctx := context.Background()
	write(t, d, "real/f.txt", "x")
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Skip(err)
	}
	var le *LinkError
	if err := d.Trash(ctx, TrashName(time.Now(), 1), "link/f.txt"); !errors.As(err, &le) {
		t.Errorf("trash through a link: %v", err)
	}
	if err := d.WalkFolder(ctx, "link", func(FileInfo) error { return nil }); !errors.As(err, &le) {
		t.Errorf("walk through a link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "real", "f.txt")); err != nil {
		t.Errorf("the file behind the link: %v", err)
	}
}

func TestS3Trash(t *testing.T) {
	g := startGateway(t, "copies")
	s := openS3(t, g, "copies/pre", Options{})
	defer s.Close()
	testTrash(t, s)
}
