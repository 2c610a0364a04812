package engine

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"rsx/demo"
	"rsx/dest/bag"
	"rsx/dest/state"
	"rsx/dest/store"
)

// A bucket copy bags into a local folder: every object is streamed into the
// bag and hashed on the way against the state's digests; the bag is valid,
// and an object changed in the bucket keeps the bag from being written.
func TestBagOfBucketCopy(t *testing.T) {
	endpoint, mc := startVersitygw(t, "copies")
	srv := startDemo(t, demo.Options{Resources: 300, Seed: 5})
	dest := "s3://copies/bagged?endpoint=" + endpoint + "&region=us-east-1"
	res := s3Sync(t, dest, t.TempDir(), srv.URL+"/dataset2/capabilitylist.xml", PlanOptions{})
	if !res.OK() || res.Created == 0 {
		t.Fatalf("baseline into the bucket: %d:%s", res.Created, failures(res))
	}
	ctx := context.Background()
	bagOf := func(out string) (*bag.Result, error) {
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
		if err != nil || p == "" {
			t.Fatalf("state %q: %v", p, err)
		}
		db, err := state.OpenReadOnly(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		return bag.Write(ctx, st, db, out, bag.Options{})
	}
	out := filepath.Join(t.TempDir(), "bag")
	r, err := bagOf(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Files != res.Created || r.Copied != r.Files || r.Hashed != r.Files {
		t.Errorf("files %d (created %d), copied %d, hashed %d: a bucket's objects are streamed and hashed", r.Files, res.Created, r.Copied, r.Hashed)
	}
	c, err := bag.Verify(ctx, out, nil)
	if err != nil || !c.Valid() {
		t.Fatalf("verify: %v %v", err, c.Problems)
	}

	// One object replaced in the bucket behind rsx's back, same length.
	var key string
	for o := range mc.ListObjects(ctx, "copies", minio.ListObjectsOptions{Prefix: "bagged/", Recursive: true}) {
		if o.Size > 0 && !strings.Contains(o.Key, "/.rsx/") {
			key = o.Key
			obj, err := mc.GetObject(ctx, "copies", key, minio.GetObjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			b := make([]byte, o.Size)
			obj.Read(b)
			obj.Close()
			b[0] ^= 0xff
			if _, err := mc.PutObject(ctx, "copies", key, bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if key == "" {
		t.Fatal("no object found")
	}
	out2 := filepath.Join(t.TempDir(), "bag")
	r, err = bagOf(out2)
	if err == nil || len(r.Refused) != 1 {
		t.Fatalf("a changed object was bagged: err %v, refused %+v", err, r)
	}
}
