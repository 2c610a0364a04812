package republish

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"rsx/demo"
	"rsx/dest/engine"
	"rsx/dest/store"
	"rsx/internal/s3test"
)

const (
	s3Access = "rsxserveaccess"
	s3Secret = "rsxservesecretkey0123456789"
)

// startVersitygw starts the bucket tests' S3 server (internal/s3test:
// versitygw or SeaweedFS, as RSX_VERSITYGW, RSX_SEAWEEDFS and
// RSX_S3_SERVER choose) with a bucket, or skips the test saying why.
func startVersitygw(t *testing.T, bucket string) (string, *minio.Client) {
	t.Helper()
	s := s3test.Start(t, s3test.Options{Access: s3Access, Secret: s3Secret, Bucket: bucket})
	return s.Endpoint, s.Client
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

// A copy in a bucket is served as one in a folder: its documents check
// clean, its objects are served as the copy verified them (a damaged one
// is not), and a sync of the bucket shows in what is served once it ends,
// from the state the run uploaded.
func TestServeBucketCopy(t *testing.T) {
	endpoint, mc := startVersitygw(t, "copies")
	srv := startDemo(t, demo.Options{Resources: 200})
	dest := "s3://copies/agg?endpoint=" + endpoint + "&region=us-east-1"
	target := srv.URL + "/dataset1/capabilitylist.xml"
	ctx := context.Background()
	open := func(ro bool) store.Store {
		t.Helper()
		st, err := store.Open(ctx, dest, store.Options{Getenv: s3Getenv, CacheDir: t.TempDir(), ReadOnly: ro, Create: !ro})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	syncCopy(t, open(false), target, engine.PlanOptions{})
	s, base := serveStore(t, open(true), shape{}, Options{})
	if probs, docs := problems(t, base); len(probs) > 0 || docs < 5 {
		t.Errorf("%d documents, problems:\n%s", docs, strings.Join(probs, "\n"))
	}
	rl := parseDoc(t, base+"/resourcesync/1/resourcelist.xml")
	if len(rl.Entries) < 2 {
		t.Fatalf("%d entries", len(rl.Entries))
	}
	objectOf := func(loc string) string { return "agg/" + strings.TrimPrefix(loc, base+"/") }
	good, bad := rl.Entries[0], rl.Entries[1]
	obj, err := mc.GetObject(ctx, "copies", objectOf(good.Loc), minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	want.ReadFrom(obj)
	obj.Close()
	if resp, b, err := get(t, good.Loc, nil); err != nil || resp.StatusCode != 200 || !bytes.Equal(b, want.Bytes()) || resp.Header.Get("Content-Type") != good.MD.Type {
		t.Errorf("an object of the copy: %d %v %q", resp.StatusCode, err, resp.Header.Get("Content-Type"))
	}
	if resp, b, _ := get(t, good.Loc, map[string]string{"Range": "bytes=1-4"}); resp.StatusCode != http.StatusPartialContent || !bytes.Equal(b, want.Bytes()[1:5]) {
		t.Errorf("a range of an object: %d %q", resp.StatusCode, b)
	}
	// An object overwritten with other bytes of its size: never whole.
	junk := bytes.Repeat([]byte("x"), int(bad.MD.Length))
	if _, err := mc.PutObject(ctx, "copies", objectOf(bad.Loc), bytes.NewReader(junk), int64(len(junk)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if resp, b, err := get(t, bad.Loc, nil); err == nil || (resp.StatusCode == 200 && bytes.Equal(b, junk)) {
		t.Errorf("a damaged object was served whole: %d, %d bytes, %v", resp.StatusCode, len(b), err)
	}

	// A run that ends shows.
	was := s.cur.Load().until
	advance(t, srv.URL, 4)
	res := syncCopy(t, open(false), target, engine.PlanOptions{Delete: true})
	if res.Created+res.Updated+res.Deleted == 0 {
		t.Fatal("the demo's advance changed nothing")
	}
	g := waitGeneration(t, s, was)
	if n := len(g.sources[0].lists); n == 0 {
		t.Fatal("no Change List")
	}
	cl := parseDoc(t, s.clURL(g.sources[0], g.sources[0].lists[len(g.sources[0].lists)-1]))
	after := 0
	for _, e := range cl.Entries {
		if e.MD.Datetime.Time.After(was) {
			after++
		}
	}
	if after != res.Created+res.Updated+res.Deleted {
		t.Errorf("%d changes after the generation before, the run made %d", after, res.Created+res.Updated+res.Deleted)
	}
	// The state's later copies are made from earlier ones, by the segments
	// they lack, not fetched whole each time.
	for range 3 {
		was = g.until
		advance(t, srv.URL, 2)
		syncCopy(t, open(false), target, engine.PlanOptions{Delete: true})
		g = waitGeneration(t, s, was)
	}
	br := s.reader.(*bucketReader)
	br.mu.Lock()
	copies, reused := br.copies, br.reused
	br.mu.Unlock()
	if reused == 0 {
		t.Errorf("%d copies of the state, none made from an earlier one", copies)
	}
}
