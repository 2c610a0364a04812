package state

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenReadOnlyWithALogLeft: the state of a run killed before its
// write-ahead log was copied into the file is read with the log, also from
// a read-only mount (where SQLite can make nothing beside the file).
func TestOpenReadOnlyWithALogLeft(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.ExecContext(ctx, "PRAGMA wal_autocheckpoint=0"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.EnsureSource(ctx, "http://example.org/cl.xml"); err != nil {
		t.Fatal(err)
	}
	// The files as a kill leaves them: the Source is in the log only.
	left := t.TempDir()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(filepath.Join(dir, "state.db"+suffix))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(left, "state.db"+suffix), b, 0o644)
	}
	db.Close()
	read := func(where string) {
		t.Helper()
		ro, err := OpenReadOnly(ctx, filepath.Join(where, "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		if _, err := ro.Source(ctx, "http://example.org/cl.xml"); err != nil {
			t.Errorf("%s: the Source in the log: %v", where, err)
		}
	}
	read(left)
	mnt := t.TempDir()
	if err := syscall.Mount(left, mnt, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("no bind mount here: %v", err)
	}
	defer syscall.Unmount(mnt, syscall.MNT_DETACH)
	if err := syscall.Mount("", mnt, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("no read-only remount here: %v", err)
	}
	read(mnt)
}
