package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenReadOnly: a state opened read-only reads what was written, refuses
// every write (SQLite opened it read-only: root, whom file modes do not stop,
// cannot write through it either), and makes nothing beside the file.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.EnsureSource(ctx, "http://example.org/capabilitylist.xml"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadDir(dir)
	fi, _ := os.Stat(path)

	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if !ro.ReadOnly() {
		t.Error("ReadOnly is false")
	}
	if _, err := ro.Source(ctx, "http://example.org/capabilitylist.xml"); err != nil {
		t.Errorf("read: %v", err)
	}
	if _, err := ro.EnsureSource(ctx, "http://example.org/other.xml"); err == nil {
		t.Error("EnsureSource wrote to a read-only state")
	}
	if _, err := ro.sql.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('x', 'y')`); err == nil {
		t.Error("an INSERT went through")
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Errorf("files beside the state: %v, before %v", after, before)
	}
	if fi2, _ := os.Stat(path); fi2.ModTime() != fi.ModTime() || fi2.Size() != fi.Size() {
		t.Errorf("the state file changed")
	}

	// Nothing to open: an error, and no file made.
	missing := filepath.Join(dir, "none.db")
	if _, err := OpenReadOnly(ctx, missing); err == nil {
		t.Error("opened a state that does not exist")
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a state was made: %v", err)
	}
	// An empty file is no state, and gets none.
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o644)
	var se *SchemaError
	if _, err := OpenReadOnly(ctx, empty); !errors.As(err, &se) {
		t.Errorf("empty file: %v", err)
	}
}
