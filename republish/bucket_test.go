package republish

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"rsx/demo"
	"rsx/dest/engine"
	"rsx/dest/store"
)

const (
	s3Access = "rsxserveaccess"
	s3Secret = "rsxservesecretkey0123456789"
)

// startVersitygw starts a real S3 server with a bucket, or skips the test
// (RSX_VERSITYGW names a versitygw binary: scripts/versitygw builds one).
func startVersitygw(t *testing.T, bucket string) (string, *minio.Client) {
	t.Helper()
	bin := os.Getenv("RSX_VERSITYGW")
	if bin == "" {
		bin, _ = exec.LookPath("versitygw")
	}
	if bin == "" {
		t.Skip("no S3 server to test against: set RSX_VERSITYGW to a versitygw binary (scripts/versitygw builds one) or put versitygw on PATH")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "--access", s3Access, "--secret", s3Secret, "--port", addr, "posix", t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	mc, err := minio.New(addr, &minio.Options{Creds: credentials.NewStaticV4(s3Access, s3Secret, ""), BucketLookup: minio.BucketLookupPath})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for deadline := time.Now().Add(15 * time.Second); ; {
		if _, err := mc.ListBuckets(ctx); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("versitygw did not answer on %s: %v\n%s", addr, err, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := mc.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr, mc
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
