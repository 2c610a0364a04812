package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"rsx/demo"
	"rsx/dest/state"
	"rsx/dest/store"
)

// bucketRun plans and runs a sync into the bucket dest, its state cached in
// cache, and returns the result, the bytes of state the run uploaded and
// the documents its run kept.
func bucketRun(t *testing.T, dest, cache, target string, po PlanOptions) (*Result, int64, []state.RunDocument) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dest, store.Options{Getenv: s3Getenv, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := Open(ctx, st, testClient(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Plan(ctx, target, po)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := s.Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := s.db.LastRun(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := s.db.RunDocuments(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	return res, st.(interface{ StateUploaded() int64 }).StateUploaded(), docs
}

// TestBucketRunsUploadTheirChanges: in a bucket, the state a run of a few
// changes uploads follows what it changed, the reconcile of a Source whose
// Resource List moved on too: it keeps of the Resource List Index's parts
// only those that list a file it wrote (it kept every part again, the whole
// list added to the state: 41 parts and 455 kB of state uploaded here
// before, 7.9 MB at 80,000 resources).
func TestBucketRunsUploadTheirChanges(t *testing.T) {
	endpoint, mc := startVersitygw(t, "uploads")
	srv := startDemo(t, demo.Options{Resources: 5000, ListSize: 100, Seed: 41})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dest := "s3://uploads/copy?endpoint=" + endpoint + "&region=us-east-1"
	cache := t.TempDir()
	isPart := func(u string) bool { return strings.Contains(u, "/resourcelist-0") }

	res, up, docs := bucketRun(t, dest, cache, target, PlanOptions{})
	if !res.OK() || res.Created < 3000 {
		t.Fatalf("baseline: %d created:%s", res.Created, failures(res))
	}
	parts := 0
	for _, d := range docs {
		if isPart(d.URL) {
			parts++
		}
	}
	if parts < 30 {
		t.Fatalf("the baseline kept %d parts of the Resource List Index", parts)
	}
	t.Logf("baseline: %d resources, %d bytes of state uploaded, %d documents kept (%d parts)", res.Created, up, len(docs), parts)

	advance(t, srv.URL, 2)
	res, up, _ = bucketRun(t, dest, cache, target, PlanOptions{})
	if !res.OK() || res.Plan.Mode != ModeIncremental || res.Plan.Summary.Work() == 0 {
		t.Fatalf("incremental: %+v:%s", res.Plan.Summary, failures(res))
	}
	if up > 96<<10 {
		t.Errorf("an incremental run of %d changes uploaded %d bytes of state", res.Plan.Summary.Work(), up)
	}
	t.Logf("incremental: %d changes, %d bytes of state uploaded", res.Plan.Summary.Work(), up)

	// The Resource List moves on (a new at in every part); one file of the
	// copy is gone: the reconcile fetches it again.
	advance(t, srv.URL, 2)
	var gone string
	for o := range mc.ListObjects(context.Background(), "uploads", minio.ListObjectsOptions{Prefix: "copy/", Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		if !strings.HasPrefix(o.Key, "copy/.rsx/") && strings.Contains(o.Key, "/res/") {
			gone = o.Key
			break
		}
	}
	if err := mc.RemoveObject(context.Background(), "uploads", gone, minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	res, up, docs = bucketRun(t, dest, cache, target, PlanOptions{Mode: ModeBaseline, Delete: true})
	if !res.OK() || !res.Plan.Reconcile || res.Plan.Summary.Repair != 1 {
		t.Fatalf("reconcile: %+v:%s", res.Plan.Summary, failures(res))
	}
	written := res.Created + res.Updated
	parts = 0
	for _, d := range docs {
		if isPart(d.URL) {
			parts++
		}
	}
	if parts == 0 || parts > written {
		t.Errorf("the reconcile wrote %d files and kept %d parts of the Resource List Index", written, parts)
	}
	if up > 192<<10 {
		t.Errorf("a reconcile that wrote %d files uploaded %d bytes of state", written, up)
	}
	t.Logf("reconcile: %d files written, %d deleted, %d parts kept, %d bytes of state uploaded", written, res.Deleted, parts, up)
}
