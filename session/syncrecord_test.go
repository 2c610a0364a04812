package session

import (
	"context"
	"path/filepath"
	"testing"

	"rsx/demo"
	"rsx/dest/state"
	"rsx/internal/version"
)

// lastRun reads the newest run of the folder destination dir.
func lastRun(t *testing.T, dir string) state.Run {
	t.Helper()
	db, err := state.OpenReadOnly(context.Background(), filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r, ok, err := db.LastRun(context.Background(), 0)
	if err != nil || !ok {
		t.Fatalf("no run recorded: %v", err)
	}
	return r
}

// An explorer's sync records the same rsx as rsx sync of the same binary
// (it recorded "rsx (devel)" beside the CLI's "rsx 0.1.0-dev").
func TestSyncRecordsTheVersion(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 20, ListSize: 1000})
	dir := t.TempDir()
	j := s.NewSync(SyncRequest{Dest: dir, Target: srv.URL + "/dataset1/capabilitylist.xml"})
	if _, err := j.Plan(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if r := lastRun(t, dir); r.Version != version.Program() {
		t.Errorf("the explorer's run records %q, want %q", r.Version, version.Program())
	}
}
