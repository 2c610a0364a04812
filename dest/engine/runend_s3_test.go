package engine

import (
	"context"
	"testing"

	"rsx/demo"
	"rsx/dest/state"
	"rsx/dest/store"
)

// A run's end is recorded after its last batch of the state: in a bucket it
// must be uploaded too, or the bucket's state (read by another machine, or
// from a fresh cache) holds the run with no end, and rsx bag refuses the
// copy as one whose last run was killed.
func TestBucketStateHoldsTheRunsEnd(t *testing.T) {
	endpoint, _ := startVersitygw(t, "runend")
	srv := startDemo(t, demo.Options{Resources: 50, Seed: 5})
	dest := "s3://runend/p?endpoint=" + endpoint + "&region=us-east-1"
	res := s3Sync(t, dest, t.TempDir(), srv.URL+"/dataset2/capabilitylist.xml", PlanOptions{})
	if !res.OK() {
		t.Fatalf("sync: %s", failures(res))
	}
	ctx := context.Background()
	st, err := store.Open(ctx, dest, store.Options{Getenv: s3Getenv, CacheDir: t.TempDir(), ReadOnly: true, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lock, err := st.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	p, err := st.StatePath(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db, err := state.OpenReadOnly(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, err := db.Source(ctx, srv.URL+"/dataset2/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	r, ok, err := db.LastRun(ctx, src.ID)
	if err != nil || !ok {
		t.Fatalf("last run: %v %v", ok, err)
	}
	if r.Ended.IsZero() || r.ExitStatus != 0 {
		t.Errorf("the bucket's state holds run %d with end %v, exit status %d", r.ID, r.Ended, r.ExitStatus)
	}
}
