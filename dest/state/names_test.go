package state

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A Source is found by its key, by a name recorded for it, and by the same
// URL with the other of http and https; a name belongs to one Source.
func TestSourceNamed(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a, _ := db.EnsureSource(ctx, "https://h/a/cap.xml")
	b, _ := db.EnsureSource(ctx, "https://h/b/cap.xml")
	if err := db.NameSource(ctx, a.ID, "https://h/old/cap.xml", "https://h/b/cap.xml", "https://h/a/cap.xml"); err != nil {
		t.Fatal(err)
	}
	if err := db.NameSource(ctx, b.ID, "https://h/old/cap.xml"); err != nil {
		t.Fatal(err)
	}
	for url, want := range map[string]int64{
		"https://h/a/cap.xml":      a.ID,
		"http://h/a/cap.xml":       a.ID,
		"https://h/old/cap.xml":    a.ID,
		"http://h/old/cap.xml":     a.ID,
		"https://h/b/cap.xml":      b.ID, // a key is no name of another
		"https://u:pw@h/a/cap.xml": a.ID, // userinfo is no part of a name
	} {
		src, err := db.SourceNamed(ctx, url)
		if err != nil || src.ID != want {
			t.Errorf("SourceNamed(%s) = %d, %v; want %d", url, src.ID, err, want)
		}
	}
	if _, err := db.SourceNamed(ctx, "https://h/c/cap.xml"); !errors.Is(err, ErrNoSource) {
		t.Errorf("an unknown URL: %v", err)
	}
	if names, err := db.SourceNames(ctx, a.ID); err != nil || !slices.Equal(names, []string{"https://h/old/cap.xml"}) {
		t.Errorf("names of a: %q, %v", names, err)
	}
}

// When the resource that kept another Source's resource out leaves its
// path (deleted, or moved), that Source is due a reconcile; what it has a
// copy of since is forgotten.
func TestHeldPathFreed(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a, _ := db.EnsureSource(ctx, "http://h/a/cap.xml")
	b, _ := db.EnsureSource(ctx, "http://h/b/cap.xml")
	now := time.Now()
	w := db.NewWriter(WriterOptions{})
	for _, r := range []*Resource{
		{SourceID: b.ID, URI: "http://h/r/x", Path: "h/r/x", Length: 1, FetchedAt: now},
		{SourceID: b.ID, URI: "http://h/r/y", Path: "h/r/y", Length: 1, FetchedAt: now},
	} {
		if err := w.PutResource(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range []Held{{URI: "http://h/r/x", OwnerID: b.ID, OwnerPath: "h/r/x"}, {URI: "http://h/r/y/z", OwnerID: b.ID, OwnerPath: "h/r/y"}} {
		if err := w.PutHeld(ctx, a.ID, h); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	due := func() time.Time {
		t.Helper()
		src, err := db.Source(ctx, a.URL)
		if err != nil {
			t.Fatal(err)
		}
		return src.ReconcileDue
	}
	if held, freed, err := db.HeldCounts(ctx, a.ID); err != nil || held != 2 || freed != 0 || !due().IsZero() {
		t.Fatalf("held %d, freed %d, %v; reconcile due %v", held, freed, err, due())
	}
	// Another row of the path's Source changes nothing; its own deletion
	// frees the path.
	w = db.NewWriter(WriterOptions{})
	if _, err := w.RemoveResource(ctx, b.ID, "http://h/r/none"); err != nil {
		t.Fatal(err)
	}
	w.Close(ctx)
	if !due().IsZero() {
		t.Fatal("due without a path freed")
	}
	w = db.NewWriter(WriterOptions{})
	if _, err := w.RemoveResource(ctx, b.ID, "http://h/r/x"); err != nil {
		t.Fatal(err)
	}
	w.Close(ctx)
	first := due()
	if first.IsZero() {
		t.Fatal("no reconcile due after the path was freed")
	}
	if held, freed, err := db.HeldCounts(ctx, a.ID); err != nil || held != 2 || freed != 1 {
		t.Errorf("held %d, freed %d, %v", held, freed, err)
	}
	// A move frees it too (the due time stays the first).
	w = db.NewWriter(WriterOptions{})
	if err := w.PutResource(ctx, &Resource{SourceID: b.ID, URI: "http://h/r/y", Path: "h/moved/y", Length: 1, FetchedAt: now}); err != nil {
		t.Fatal(err)
	}
	w.Close(ctx)
	if held, freed, err := db.HeldCounts(ctx, a.ID); err != nil || freed != 2 || !due().Equal(first) {
		t.Errorf("after a move: held %d, freed %d, %v, due %v (was %v)", held, freed, err, due(), first)
	}
	// a copies x: x is forgotten; a baseline forgets the rest.
	w = db.NewWriter(WriterOptions{})
	if err := w.PutResource(ctx, &Resource{SourceID: a.ID, URI: "http://h/r/x", Path: "h/r/x", Length: 1, FetchedAt: now}); err != nil {
		t.Fatal(err)
	}
	if err := w.DropCopiedHeld(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	w.Close(ctx)
	if held, _, _ := db.HeldCounts(ctx, a.ID); held != 1 {
		t.Errorf("after a copy: held %d", held)
	}
	w = db.NewWriter(WriterOptions{})
	if err := w.ClearHeld(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	w.Close(ctx)
	if held, _, _ := db.HeldCounts(ctx, a.ID); held != 0 {
		t.Errorf("after ClearHeld: held %d", held)
	}
}

// A file of schema version 3 is upgraded (5: names): a Capability List its history
// shows was asked for by another URL before a redirect is named by it.
func TestOpenUpgradesSchemaVersion3Names(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{schemaV3(t),
		`INSERT INTO meta (key, value) VALUES ('schema_version', '3'), ('created', '2026-01-01T00:00:00Z')`,
		`INSERT INTO source (id, url, created) VALUES (1, 'http://h/new/cap.xml', '2026-01-01T00:00:00Z'), (2, 'http://h/b/cap.xml', '2026-01-01T00:00:00Z')`,
		`INSERT INTO run (id, source_id, started, mode, rsx_version) VALUES (1, 1, '2026-01-01T00:00:00Z', 'baseline', 'x'), (2, 2, '2026-01-01T00:00:00Z', 'baseline', 'x')`,
		`INSERT INTO run_document (run_id, url, final_url, fetched_at, sha256) VALUES
			(1, 'http://h/old/cap.xml', 'http://h/new/cap.xml', '2026-01-01T00:00:00Z', 'x'),
			(1, 'http://h/rl.xml', 'http://h/rl.xml', '2026-01-01T00:00:00Z', 'y'),
			(2, 'http://h/b/cap.xml', 'http://h/b/cap.xml', '2026-01-01T00:00:00Z', 'z')`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	raw.Close()
	// Read-only, it is read as it is.
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.SourceNamed(ctx, "http://h/old/cap.xml"); !errors.Is(err, ErrNoSource) {
		t.Errorf("read-only version 3: %v", err)
	}
	if src, err := ro.SourceNamed(ctx, "http://h/b/cap.xml"); err != nil || src.ID != 2 {
		t.Errorf("read-only version 3, by its key: %+v, %v", src, err)
	}
	ro.Close()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if src, err := db.SourceNamed(ctx, "http://h/old/cap.xml"); err != nil || src.ID != 1 {
		t.Errorf("the old URL after the upgrade: %+v, %v", src, err)
	}
	if names, _ := db.SourceNames(ctx, 1); !slices.Equal(names, []string{"http://h/old/cap.xml"}) {
		t.Errorf("names %q", names)
	}
	if held, freed, err := db.HeldCounts(ctx, 1); err != nil || held != 0 || freed != 0 {
		t.Errorf("held %d %d %v", held, freed, err)
	}
}
