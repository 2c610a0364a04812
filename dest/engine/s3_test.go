package engine

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"rsx/demo"
	"rsx/dest/pathmap"
	"rsx/dest/store"
	"rsx/internal/s3test"
)

// The bucket destination runs against a real S3 server on a free loopback
// port: versitygw (RSX_VERSITYGW, or on PATH; scripts/versitygw builds it)
// or SeaweedFS (RSX_SEAWEEDFS; scripts/seaweedfs builds it), as
// internal/s3test chooses.

const (
	s3Access = "rsxengineaccess"
	s3Secret = "rsxenginesecretkey0123456789"
)

// startVersitygw starts the S3 server with one bucket and returns its
// endpoint and a client of it, or skips the test saying why. (Named when
// versitygw was the only server.)
func startVersitygw(t *testing.T, bucket string) (string, *minio.Client) {
	t.Helper()
	s := startS3(t, bucket, "")
	return s.Endpoint, s.Client
}

// startS3 starts the S3 server with one bucket, versitygw keeping the
// buckets under root ("": a temporary folder).
func startS3(t *testing.T, bucket, root string) *s3test.Server {
	t.Helper()
	return s3test.Start(t, s3test.Options{Access: s3Access, Secret: s3Secret, Bucket: bucket, Root: root})
}

func s3Getenv(k string) string {
	switch k {
	case "AWS_ACCESS_KEY_ID":
		return s3Access
	case "AWS_SECRET_ACCESS_KEY":
		return s3Secret
	}
	return ""
}

// s3Sync plans and runs against the bucket, with a working folder of its own.
func s3Sync(t *testing.T, dest, cache string, target string, po PlanOptions) *Result {
	t.Helper()
	return s3SyncWith(t, dest, store.Options{Getenv: s3Getenv, CacheDir: cache}, target, po)
}

// assertBucketMirror checks the bucket's objects under prefix against the
// Resource List, as assertMirror does for a folder.
func assertBucketMirror(t *testing.T, mc *minio.Client, bucket, prefix, rl string) {
	t.Helper()
	ctx := context.Background()
	m, _ := pathmap.New(pathmap.Options{AllowOtherHosts: true})
	entries := sourceEntries(t, rl)
	want := map[string]bool{}
	for _, e := range entries {
		p, _ := m.Map(e.Loc)
		key := prefix + "/" + p
		want[key] = true
		obj, err := mc.GetObject(ctx, bucket, key, minio.GetObjectOptions{})
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		b, err := io.ReadAll(obj)
		obj.Close()
		h, _ := e.MD.Hash.Get("md5")
		if err != nil || md5hex(b) != h.Hex() {
			t.Errorf("%s: %v, md5 %s, declared %s", key, err, md5hex(b), h.Hex())
		}
	}
	n := 0
	for o := range mc.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: prefix + "/", Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		if strings.HasPrefix(o.Key, prefix+"/.rsx/") {
			continue
		}
		if !want[o.Key] {
			t.Errorf("extra object %s", o.Key)
		}
		n++
	}
	if n != len(want) {
		t.Errorf("%d objects for %d resources", n, len(want))
	}
}

func TestS3Destination(t *testing.T) {
	endpoint, mc := startVersitygw(t, "copies")
	srv := startDemo(t, demo.Options{Resources: 1000, Seed: 21})
	target := srv.URL + "/dataset2/capabilitylist.xml"
	rl := srv.URL + "/dataset2/resourcelist.xml"
	dest := "s3://copies/demo/images?endpoint=" + endpoint + "&region=us-east-1"

	res := s3Sync(t, dest, t.TempDir(), target, PlanOptions{})
	if !res.OK() || res.Created == 0 || !res.Finished {
		t.Fatalf("baseline into the bucket: %d:%s", res.Created, failures(res))
	}
	assertBucketMirror(t, mc, "copies", "demo/images", rl)
	if _, err := mc.StatObject(context.Background(), "copies", "demo/images/.rsx/state/manifest.json", minio.StatObjectOptions{}); err != nil {
		t.Errorf("the state is not in the bucket: %v", err)
	}

	// Another machine: an empty working folder. The state comes from the
	// bucket, so the run is incremental.
	advance(t, srv.URL, 4)
	res = s3Sync(t, dest, t.TempDir(), target, PlanOptions{Delete: true})
	if !res.OK() || res.Plan.Mode != ModeIncremental || res.Created+res.Updated+res.Deleted == 0 {
		t.Fatalf("continued from an empty working folder: mode %s, %+v:%s", res.Plan.Mode, res.Plan.Summary, failures(res))
	}
	assertBucketMirror(t, mc, "copies", "demo/images", rl)

	// And a third: the audit is in sync, re-reading the objects.
	st, err := store.Open(context.Background(), dest, store.Options{Getenv: s3Getenv, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := Open(context.Background(), st, testClient(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Audit(context.Background(), target)
	s.Close()
	if err != nil || !rep.InSync() || rep.Hashed != rep.Same || rep.Same == 0 {
		t.Errorf("audit of the bucket: %v %+v", err, rep)
	}
}

// A bucket's copy is reconciled as a folder's is: an object removed and one
// overwritten with other bytes are found (HEAD: its length; --checksum:
// every object read) and written again, nothing else is fetched.
func TestS3Reconcile(t *testing.T) {
	endpoint, mc := startVersitygw(t, "copies")
	srv := startDemo(t, demo.Options{Resources: 300, Seed: 29})
	target := srv.URL + "/dataset2/capabilitylist.xml"
	rl := srv.URL + "/dataset2/resourcelist.xml"
	dest := "s3://copies/rc?endpoint=" + endpoint + "&region=us-east-1"
	if res := s3Sync(t, dest, t.TempDir(), target, PlanOptions{}); !res.OK() || res.Created == 0 {
		t.Fatalf("baseline into the bucket: %d:%s", res.Created, failures(res))
	}
	ctx := context.Background()
	var keys []string
	for o := range mc.ListObjects(ctx, "copies", minio.ListObjectsOptions{Prefix: "rc/", Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		if !strings.HasPrefix(o.Key, "rc/.rsx/") {
			keys = append(keys, o.Key)
		}
	}
	if len(keys) < 3 {
		t.Fatalf("%d objects", len(keys))
	}
	if err := mc.RemoveObject(ctx, "copies", keys[0], minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	bad := []byte("not what the Source has")
	if _, err := mc.PutObject(ctx, "copies", keys[1], bytes.NewReader(bad), int64(len(bad)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	res := s3Sync(t, dest, t.TempDir(), target, PlanOptions{Mode: ModeBaseline})
	if !res.OK() || !res.Plan.Reconcile || res.Plan.Summary.Repair != 2 || res.Updated != 2 || res.Plan.Summary.Checked != len(keys) {
		t.Fatalf("reconcile of the bucket: %+v:%s", res.Plan.Summary, failures(res))
	}
	assertBucketMirror(t, mc, "copies", "rc", rl)
	res = s3Sync(t, dest, t.TempDir(), target, PlanOptions{Checksum: true})
	if !res.OK() || res.Plan.Summary.Hashed != len(keys) || res.Plan.Summary.Work() != 0 {
		t.Errorf("--checksum of an intact bucket: %+v:%s", res.Plan.Summary, failures(res))
	}
}
