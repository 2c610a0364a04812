package state

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// A tracked run's row holds the counts of its committed batches while it
// goes on (a run killed at any moment leaves them), its files are read back
// in order, an aborted batch counts nothing, and the next run marks the row
// left without an end as interrupted.
func TestRunFilesAndLiveCounts(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://h/cap.xml")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	killed := &Run{SourceID: src.ID, Started: t0, Mode: "baseline", Version: "rsx test"}
	if err := db.StartRun(ctx, killed); err != nil {
		t.Fatal(err)
	}
	w := db.NewWriter(WriterOptions{BatchSize: 3})
	w.TrackRun(killed.ID)
	files := []RunFile{
		{Kind: FileCreated, URI: "http://h/a", Path: "h/a", Length: 10, Digests: "md5:00", At: t0},
		{Kind: FileUpdated, URI: "http://h/b", Path: "h/b", Length: 5, Digests: "sha-256:11", At: t0.Add(time.Second), Note: "md5 differs"},
		{Kind: FileDeleted, URI: "http://h/c", Path: "h/c", Length: -1, At: t0.Add(2 * time.Second)},
		// The batch of three is committed; these two stay in the open one.
		{Kind: FileFailed, URI: "http://h/d", Path: "h/d", Length: -1, At: t0, Note: "404 Not Found"},
		{Kind: FileRefused, URI: "http://other/e", Length: -1, At: t0, Note: "outside the Source's authority"},
	}
	// An adopted file counts as created, its bytes not as written.
	adopted := RunFile{Kind: FileCreated, URI: "http://h/f", Path: "h/f", Length: 100, At: t0, Note: NoteAdopted}
	for _, f := range files {
		if err := w.PutRunFile(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	r, ok, err := db.Run(ctx, killed.ID)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if r.Created != 1 || r.Updated != 1 || r.Deleted != 1 || r.Failed != 0 || r.Bytes != 15 || !r.Ended.IsZero() {
		t.Errorf("the row after the first batch: %+v", r)
	}
	w.Abort() // the open batch is lost, as a kill loses it
	for _, f := range []RunFile{files[3], adopted} {
		if err := w.PutRunFile(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r, _, _ = db.Run(ctx, killed.ID)
	if r.Created != 2 || r.Failed != 1 || r.Bytes != 15 || r.Interrupted() {
		t.Errorf("the row after an aborted batch and a failure: %+v", r)
	}
	var got []RunFile
	if err := db.RunFiles(ctx, killed.ID, func(f *RunFile) error { got = append(got, *f); return nil }); err != nil {
		t.Fatal(err)
	}
	want := append(append([]RunFile{}, files[:3]...), files[3], adopted)
	if len(got) != len(want) {
		t.Fatalf("files %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("file %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// The next run holds the lock: the run without an end is over.
	next := &Run{SourceID: src.ID, Started: t0.Add(time.Hour), Mode: "baseline", Version: "rsx test"}
	if err := db.StartRun(ctx, next); err != nil {
		t.Fatal(err)
	}
	r, _, _ = db.Run(ctx, killed.ID)
	if r.Stopped != StoppedNoEnd || !r.Interrupted() || !r.Ended.IsZero() || r.Created != 2 {
		t.Errorf("the killed run after the next began: %+v", r)
	}
	if n, _, _ := db.Run(ctx, next.ID); n.Stopped != "" {
		t.Errorf("the new run is marked: %+v", n)
	}
	// Run finds a run whatever its age; an unknown one is not found.
	if _, ok, err := db.Run(ctx, 999); ok || err != nil {
		t.Errorf("run 999: %v %v", ok, err)
	}
}

// The files of the runs pruned from the history go with them.
func TestRunFilesPrunedWithTheirRun(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://h/cap.xml")
	old := &Run{SourceID: src.ID, Started: time.Now(), Mode: "baseline", Version: "t"}
	if err := db.StartRun(ctx, old); err != nil {
		t.Fatal(err)
	}
	w := db.NewWriter(WriterOptions{})
	w.TrackRun(old.ID)
	if err := w.PutRunFile(ctx, RunFile{Kind: FileCreated, URI: "http://h/a", Path: "h/a", Length: 1, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO run (source_id, started, mode, rsx_version) SELECT ?, '2026-01-01T00:00:00Z', 'incremental', 'new' FROM n`, KeepRuns, src.ID); err != nil {
		t.Fatal(err)
	}
	r := &Run{SourceID: src.ID, Started: time.Now(), Mode: "incremental", Version: "t", Ended: time.Now()}
	if err := db.StartRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := db.EndRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	var n int
	db.sql.QueryRow(`SELECT count(*) FROM run_file`).Scan(&n)
	if n != 0 {
		t.Errorf("%d files of a pruned run kept", n)
	}
}

// A database of schema version 3 is upgraded (4: run_file) when opened
// for writing; opened read-only, it is read as it is, its runs without
// files.
func TestOpenUpgradesSchemaVersion3(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	v3 := schemaV3(t)
	for _, q := range []string{v3,
		`INSERT INTO meta (key, value) VALUES ('schema_version', '3'), ('created', '2026-01-01T00:00:00Z')`,
		`INSERT INTO source (id, url, created) VALUES (1, 'http://h/cap.xml', '2026-01-01T00:00:00Z')`,
		`INSERT INTO run (id, source_id, started, mode, rsx_version) VALUES (7, 1, '2026-01-01T00:00:00Z', 'baseline', 'rsx old')`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	raw.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := ro.RunFiles(ctx, 7, func(*RunFile) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("files of a version 3 file opened read-only: %d, %v", n, err)
	}
	if r, ok, err := ro.Run(ctx, 7); !ok || err != nil || r.Version != "rsx old" {
		t.Errorf("run 7 of a version 3 file: %+v %v %v", r, ok, err)
	}
	ro.Close()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	if err := db.sql.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil || v != strconv.Itoa(SchemaVersion) {
		t.Errorf("schema_version %q, %v", v, err)
	}
	w := db.NewWriter(WriterOptions{})
	w.TrackRun(7)
	if err := w.PutRunFile(ctx, RunFile{Kind: FileCreated, URI: "http://h/a", Path: "h/a", Length: 3, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := db.Run(ctx, 7); r.Created != 1 || r.Bytes != 3 {
		t.Errorf("run 7 after a file recorded: %+v", r)
	}
}
