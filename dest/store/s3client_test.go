package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
)

// TestS3Signature checks the signer against the examples of Amazon's S3
// documentation ("Signature Calculations for the Authorization Header",
// 2013-05-24, examplebucket, AKIAIOSFODNN7EXAMPLE): requests without a body
// whose only signed headers are host, x-amz-content-sha256 and x-amz-date.
func TestS3Signature(t *testing.T) {
	c := &s3Client{region: "us-east-1", id: "AKIAIOSFODNN7EXAMPLE", secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		now: func() time.Time { return time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC) }}
	for _, tc := range []struct {
		name, query, want string
	}{
		{"GET Bucket Lifecycle", "lifecycle=", "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"},
		{"GET Bucket (List Objects)", "max-keys=2&prefix=J", "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"},
	} {
		req, _ := http.NewRequest(http.MethodGet, "https://examplebucket.s3.amazonaws.com/?"+tc.query, nil)
		c.sign(req, "/", tc.query, emptySHA256)
		want := "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=" + tc.want
		if got := req.Header.Get("Authorization"); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, want)
		}
	}
}

func TestS3Escape(t *testing.T) {
	for _, tc := range []struct{ in, path, query string }{
		{"a/b c+d", "a/b%20c%2Bd", "a%2Fb%20c%2Bd"},
		{"é~_.-", "%C3%A9~_.-", "%C3%A9~_.-"},
		{"100%/x?y=z&", "100%25/x%3Fy%3Dz%26", "100%25%2Fx%3Fy%3Dz%26"},
	} {
		if got := s3Escape(tc.in, true); got != tc.path {
			t.Errorf("path %q: %s, want %s", tc.in, got, tc.path)
		}
		if got := s3Escape(tc.in, false); got != tc.query {
			t.Errorf("query %q: %s, want %s", tc.in, got, tc.query)
		}
	}
}

// fakeS3 answers requests with fn, after checking each is signed.
func fakeS3(t *testing.T, fn http.HandlerFunc) *s3Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); !strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential=id/") {
			t.Errorf("%s %s: Authorization %q", r.Method, r.URL, a)
		}
		fn(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := newS3Client(context.Background(), srv.URL, "bucket", "", "id", "secret", "")
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = time.Millisecond
	return c
}

func TestS3ClientErrors(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int32
	c := fakeS3(t, func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch r.URL.Path {
		case "/bucket/flaky": // fails twice, then answers
			if n <= 2 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.Header().Set("ETag", `"abc"`)
			io.WriteString(w, "body")
		case "/bucket/down": // always fails
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `<?xml version="1.0"?><Error><Code>InternalError</Code><Message>we are down</Message><RequestId>r1</RequestId></Error>`)
		case "/bucket/taken":
			w.WriteHeader(http.StatusPreconditionFailed)
			io.WriteString(w, `<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>`)
		case "/bucket/moved":
			w.Header().Set("X-Amz-Bucket-Region", "eu-west-3")
			w.WriteHeader(http.StatusMovedPermanently)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	})
	body, info, err := c.getObject(ctx, "flaky")
	if err != nil {
		t.Fatalf("a request that fails twice with 503: %v", err)
	}
	b, _ := io.ReadAll(body)
	body.Close()
	if string(b) != "body" || info.ETag != "abc" || calls.Load() != 3 {
		t.Errorf("got %q, ETag %q after %d calls", b, info.ETag, calls.Load())
	}

	calls.Store(0)
	_, err = c.statObject(ctx, "down")
	var se *s3Error
	if !errors.As(err, &se) || se.Status != 500 || calls.Load() != s3Tries {
		t.Errorf("a server that stays down: %v after %d calls", err, calls.Load())
	}
	_, _, err = c.getObject(ctx, "down")
	if err == nil || !strings.Contains(err.Error(), "GET s3://bucket/down: 500 Internal Server Error: InternalError: we are down (request r1)") {
		t.Errorf("error message: %v", err)
	}

	if _, err := c.putBytes(ctx, "taken", []byte("x"), "", putCond{IfNoneMatch: "*"}); !isPreconditionFailed(err) {
		t.Errorf("a refused conditional write: %v", err)
	}
	if _, err := c.statObject(ctx, "missing"); !isNotFound(err) {
		t.Errorf("HEAD of a missing object: %v", err)
	}
	if ok, err := c.bucketExists(ctx); ok || err != nil {
		t.Errorf("a missing bucket: %v, %v", ok, err)
	}
	if _, err := c.statObject(ctx, "moved"); err == nil || !strings.Contains(err.Error(), "region=eu-west-3") {
		t.Errorf("a redirect to another region: %v", err)
	}
}

// TestS3ClientUploadsAndKeys runs the client against versitygw: an upload in
// parts, read back by another client, and keys that need escaping, listed
// and read back.
func TestS3ClientUploadsAndKeys(t *testing.T) {
	g := startGateway(t, "parts")
	ctx := context.Background()
	c, err := newS3Client(ctx, g.endpoint, "parts", "", testAccess, testSecret, "")
	if err != nil {
		t.Fatal(err)
	}
	c.partSize = 5 << 20 // S3's smallest part
	big := make([]byte, 11<<20+12345)
	rand.Read(big)
	path := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.putFile(ctx, "p/big", path, "application/octet-stream", putCond{}); err != nil {
		t.Fatalf("upload in parts: %v", err)
	}
	obj, err := g.client.GetObject(ctx, "parts", "p/big", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(obj)
	obj.Close()
	if err != nil || !bytes.Equal(got, big) {
		t.Errorf("the object uploaded in parts reads back as %d bytes (%v), want %d", len(got), err, len(big))
	}
	var left []string
	c.listUploads(ctx, "", func(key, _ string) error { left = append(left, key); return nil })
	if len(left) != 0 {
		t.Errorf("unfinished uploads left: %v", left)
	}

	keys := []string{"p/a b+c", "p/é/ü~x", "p/100%.txt", "p/q?r=s&t", "p/semi;colon,comma"}
	for _, k := range keys {
		if _, err := c.putBytes(ctx, k, []byte(k), "text/plain", putCond{}); err != nil {
			t.Fatalf("put %q: %v", k, err)
		}
	}
	var listed []string
	if err := c.listObjects(ctx, "p/", func(o s3Object) error {
		if o.Key != "p/big" {
			listed = append(listed, o.Key)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := append([]string(nil), keys...)
	sort.Strings(want)
	if strings.Join(listed, "|") != strings.Join(want, "|") {
		t.Errorf("listed %q, want %q", listed, want)
	}
	for _, k := range keys {
		body, info, err := c.getObject(ctx, k)
		if err != nil {
			t.Errorf("get %q: %v", k, err)
			continue
		}
		b, _ := io.ReadAll(body)
		body.Close()
		if string(b) != k || info.Size != int64(len(k)) || info.ETag == "" {
			t.Errorf("get %q: %q, %+v", k, b, info)
		}
		if err := c.removeObject(ctx, k); err != nil {
			t.Errorf("remove %q: %v", k, err)
		}
		if _, err := c.statObject(ctx, k); !isNotFound(err) {
			t.Errorf("stat of removed %q: %v", k, err)
		}
	}
	dst := filepath.Join(t.TempDir(), "x")
	if err := c.getFile(ctx, "p/gone", dst); !isNotFound(err) {
		t.Errorf("get a missing object into a file: %v", err)
	}
	if _, err := os.Stat(dst); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed download left a file: %v", err)
	}
}
