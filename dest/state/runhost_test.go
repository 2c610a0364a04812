package state

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// Each run records the process that ran it (a fleet shared by several
// processes says which ran each run). A file without the column, as an rsx
// before it wrote them, gets it when opened for writing, and reads it as
// empty when opened read-only; its older runs read with no host.
func TestRunHostColumnAddedWithoutNewVersion(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	src, err := db.EnsureSource(ctx, "http://example.org/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	old := &Run{SourceID: src.ID, Started: time.Now(), Mode: "baseline", Version: "rsx old"}
	if err := db.StartRun(ctx, old); err != nil {
		t.Fatal(err)
	}
	// As an rsx before the column wrote the file.
	if _, err := db.sql.ExecContext(ctx, `ALTER TABLE run DROP COLUMN host`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	ro, err := OpenReadOnly(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	r, ok, err := ro.LastRun(ctx, src.ID)
	if err != nil || !ok || r.Host != "" {
		t.Fatalf("read-only, without the column: %+v %v %v", r, ok, err)
	}
	ro.Close()

	db, err = Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.version != SchemaVersion {
		t.Errorf("schema version %d, want %d: the column needs no new version", db.version, SchemaVersion)
	}
	r1 := &Run{SourceID: src.ID, Started: time.Now(), Mode: "incremental", Version: "rsx new", Host: "worker-b"}
	if err := db.StartRun(ctx, r1); err != nil {
		t.Fatal(err)
	}
	var hosts []string
	if err := db.Runs(ctx, src.ID, 0, func(r *Run) error { hosts = append(hosts, r.Host); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 2 || hosts[0] != "worker-b" || hosts[1] != "" {
		t.Errorf("hosts newest first %q, want [worker-b \"\"]", hosts)
	}
}
