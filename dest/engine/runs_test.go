package engine

import (
	"context"
	"path/filepath"
	"testing"

	"rsx/demo"
	"rsx/dest/state"
)

// Every run is recorded in the state's run table: its mode, counts, the
// copy's point and its exit status, newest first.
func TestRunsAreRecorded(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 200, Seed: 3})
	dir := t.TempDir()
	target := srv.URL + "/dataset2/capabilitylist.xml"
	first := syncOnce(t, dir, testClient(t), target, PlanOptions{})
	advance(t, srv.URL, 2)
	second := syncOnce(t, dir, testClient(t), target, PlanOptions{})
	third := syncOnce(t, dir, testClient(t), target, PlanOptions{Mode: ModeBaseline})
	if !first.OK() || !second.OK() || !third.OK() {
		t.Fatalf("runs failed: %s %s %s", failures(first), failures(second), failures(third))
	}
	db, err := state.OpenReadOnly(context.Background(), filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var runs []state.Run
	if err := db.Runs(context.Background(), 0, 0, func(r *state.Run) error { runs = append(runs, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 {
		t.Fatalf("%d runs recorded, want 3", len(runs))
	}
	want := []struct {
		mode string
		res  *Result
	}{{"reconcile", third}, {"incremental", second}, {"baseline", first}}
	for i, w := range want {
		r := runs[i]
		if r.Mode != w.mode || r.Created != w.res.Created || r.Updated != w.res.Updated || r.Deleted != w.res.Deleted ||
			r.Bytes != w.res.Bytes || r.ExitStatus != 0 || r.Ended.IsZero() || !r.Finished || !r.SyncedUntil.Equal(w.res.SyncedUntil) ||
			r.Source != target || r.Version == "" {
			t.Errorf("run %d: %+v, want mode %s and the result's counts %d/%d/%d", i, r, w.mode, w.res.Created, w.res.Updated, w.res.Deleted)
		}
	}
	if runs[0].Why == "" {
		t.Error("a reconcile's run does not say why")
	}
}
