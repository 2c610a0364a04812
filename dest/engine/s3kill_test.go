package engine

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/internal/testproc"
)

// TestKillMidBucketBaseline kills (SIGKILL) a process in the middle of a
// baseline into a bucket. Another machine (an empty working folder) then
// restores the state from the bucket: it holds every batch published before
// the kill (the state lost at most the batch in flight: what it records
// exists in the bucket), and the next run from there fetches only what was
// not uploaded, keeping what the state records and adopting, verified in
// place, what was uploaded but not yet recorded: found by listing the
// copy, not by a HEAD request for each resource it creates.
func TestKillMidBucketBaseline(t *testing.T) {
	if dest := os.Getenv("RSX_ENGINE_S3KILL_DEST"); dest != "" {
		killableBucketBaseline(dest, os.Getenv("RSX_ENGINE_S3KILL_CACHE"), os.Getenv("RSX_ENGINE_S3KILL_TARGET"))
		return
	}
	if testing.Short() {
		t.Skip("starts a process and kills it")
	}
	endpoint, mc := startVersitygw(t, "killed")
	const n = 400
	f := manySource(t, n)
	f.mu.Lock()
	f.hook = func(p string) {
		if strings.HasPrefix(p, "/r/") {
			time.Sleep(5 * time.Millisecond)
		}
	}
	f.mu.Unlock()
	dest := "s3://killed/copy?endpoint=" + endpoint + "&region=us-east-1"
	ctx := context.Background()
	objects := func() int {
		c := 0
		for o := range mc.ListObjects(ctx, "killed", minio.ListObjectsOptions{Prefix: "copy/", Recursive: true}) {
			if o.Err == nil && !strings.HasPrefix(o.Key, "copy/.rsx/") {
				c++
			}
		}
		return c
	}
	cmd := testproc.Start(t, "TestKillMidBucketBaseline", "RSX_ENGINE_S3KILL_DEST="+dest,
		"RSX_ENGINE_S3KILL_CACHE="+t.TempDir(), "RSX_ENGINE_S3KILL_TARGET="+f.target())
	deadline := time.Now().Add(time.Minute)
	for objects() < n/3 {
		if time.Now().After(deadline) {
			t.Fatal("the helper uploaded too little within a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// A PUT whose body reached the server before the kill may still complete
	// there after the process is gone (CI saw two such objects land after the
	// count): count once the killed run's lock has gone stale, well after.
	time.Sleep(2500 * time.Millisecond)
	done := objects()
	if done >= n {
		t.Fatalf("the helper finished before it was killed (%d objects)", done)
	}

	// Another machine restores the state the bucket has.
	opts := store.Options{Getenv: s3Getenv, CacheDir: t.TempDir(), LockStaleAfter: 2 * time.Second}
	st, err := store.Open(ctx, dest, opts)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := st.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.StatePath(ctx)
	if err != nil {
		t.Fatalf("restore the killed run's state: %v", err)
	}
	db, err := state.OpenReadOnly(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	srcs, _ := db.Sources(ctx)
	recorded := 0
	if len(srcs) == 1 {
		c, _ := db.Count(ctx, srcs[0].ID)
		recorded = c.Resources
		var missing []string
		db.EachResource(ctx, srcs[0].ID, false, func(r *state.Resource) error {
			if _, err := st.Stat(ctx, r.Path); err != nil {
				missing = append(missing, r.Path)
			}
			return nil
		})
		if len(missing) > 0 {
			t.Errorf("the state records %d objects the bucket does not have: %v", len(missing), missing)
		}
	}
	db.Close()
	lock.Release()
	st.Close()
	t.Logf("killed with %d of %d objects uploaded; the bucket's state records %d (the batch in flight: %d)", done, n, recorded, done-recorded)
	if recorded == 0 || recorded > done {
		t.Fatalf("the restored state records %d resources of %d uploaded", recorded, done)
	}

	// The next run lists the copy to find what it may adopt: no HEAD
	// request for each resource it creates.
	f.resetHits()
	c := &s3Counter{prefix: "copy"}
	front := "s3://killed/copy?endpoint=" + c.start(t, endpoint) + "&region=us-east-1"
	res := s3SyncWith(t, front, opts, f.target(), PlanOptions{})
	if heads, _ := c.counts(); heads > 0 {
		t.Errorf("the next run sent %d HEAD requests for the copy's objects (it creates %d)", heads, n-recorded)
	}
	if !res.OK() || !res.Finished || !res.Plan.Resumed {
		t.Fatalf("the next run: finished %v, mode %s, resumed %v:%s", res.Finished, res.Plan.Mode, res.Plan.Resumed, failures(res))
	}
	if got := f.resourceHits(); got != n-done {
		t.Errorf("the next run fetched %d resources; %d were not uploaded", got, n-done)
	}
	if res.Plan.Summary.Unchanged != recorded || res.Adopted != done-recorded || res.Created+res.Plan.Summary.Unchanged != n {
		t.Errorf("created %d (adopted %d), unchanged %d; want %d recorded kept and %d adopted", res.Created, res.Adopted, res.Plan.Summary.Unchanged, recorded, done-recorded)
	}
	if got := objects(); got != n {
		t.Errorf("%d objects after the next run, want %d", got, n)
	}
}

// s3SyncWith is s3Sync with the store's options given.
func s3SyncWith(t *testing.T, dest string, opts store.Options, target string, po PlanOptions) *Result {
	t.Helper()
	st, err := store.Open(context.Background(), dest, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := Open(context.Background(), st, testClient(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Plan(context.Background(), target, po)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := s.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// killableBucketBaseline runs a baseline into the bucket in the helper
// process until it is killed.
func killableBucketBaseline(dest, cache, target string) {
	fail := func(err error) {
		fmt.Println(err)
		os.Exit(3)
	}
	st, err := store.Open(context.Background(), dest, store.Options{Getenv: s3Getenv, CacheDir: cache, LockStaleAfter: 2 * time.Second})
	if err != nil {
		fail(err)
	}
	// The kill finds some objects published and others only uploaded.
	runToBeKilled(st, target, fail)
}
