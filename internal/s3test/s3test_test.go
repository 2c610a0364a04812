package s3test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// The server the environment chooses starts, with the keys asked for and
// the bucket made, and serves a write, a read and a listing; what its start
// took and its peak memory are logged (go test -v).
func TestStartServes(t *testing.T) {
	s := Start(t, Options{Access: "s3testkey", Secret: "s3testsecret0123456789", Bucket: "smoke"})
	ctx := context.Background()
	for _, k := range []string{"a/b/c.txt", "a/b/d.txt", "a/e"} {
		if _, err := s.Client.PutObject(ctx, "smoke", k, strings.NewReader(k), int64(len(k)), minio.PutObjectOptions{}); err != nil {
			t.Fatalf("put %s: %v", k, err)
		}
	}
	obj, err := s.Client.GetObject(ctx, "smoke", "a/b/d.txt", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(obj)
	obj.Close()
	if err != nil || string(b) != "a/b/d.txt" {
		t.Errorf("get: %q %v", b, err)
	}
	var keys []string
	for o := range s.Client.ListObjects(ctx, "smoke", minio.ListObjectsOptions{Prefix: "a/", Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		keys = append(keys, o.Key)
	}
	if strings.Join(keys, " ") != "a/b/c.txt a/b/d.txt a/e" {
		t.Errorf("listed %q", keys)
	}
	// Other keys are refused.
	other, err := minio.New(s.Addr, &minio.Options{Creds: credentialsOf("nobody", "nothing-at-all-0123"), BucketLookup: minio.BucketLookupPath, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.ListBuckets(ctx); err == nil {
		t.Errorf("%s accepted keys it was not given", s.Kind)
	}
	t.Logf("%s answered %v after its start; peak RSS %d MiB", s.Kind, s.Started.Round(10e6), s.PeakRSS()>>20)
}

func credentialsOf(access, secret string) *credentials.Credentials {
	return credentials.NewStaticV4(access, secret, "")
}
