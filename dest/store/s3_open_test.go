package store

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestS3OpenOneRequest: opening an object sends one GET, not a HEAD
// (obj.Stat of minio-go's lazy object) and then a GET: an audit of a
// bucket copy read every object twice over. A missing object is still
// fs.ErrNotExist at Open, and an empty one opens.
func TestS3OpenOneRequest(t *testing.T) {
	var mu sync.Mutex
	count := map[string]int{}
	objects := map[string]string{"/bkt/p/a.txt": "hello", "/bkt/p/empty": ""}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bkt/" || r.URL.Path == "/bkt" { // BucketExists
			w.WriteHeader(http.StatusOK)
			return
		}
		mu.Lock()
		count[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		body, ok := objects[r.URL.Path]
		if !ok {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotFound)
			if r.Method == http.MethodGet {
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>no</Message><Key>x</Key><BucketName>bkt</BucketName></Error>`)
			}
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Header().Set("ETag", `"0123456789abcdef0123456789abcdef"`)
		w.Header().Set("Last-Modified", "Fri, 27 Nov 2026 10:00:00 GMT")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			io.WriteString(w, body)
		}
	}))
	defer srv.Close()
	env := map[string]string{"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret"}
	ctx := context.Background()
	st, err := Open(ctx, "s3://bkt/p?endpoint="+srv.URL+"&region=us-east-1", Options{ReadOnly: true, Getenv: func(k string) string { return env[k] }, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, c := range []struct{ path, want string }{{"a.txt", "hello"}, {"empty", ""}} {
		f, err := st.Open(ctx, c.path)
		if err != nil {
			t.Fatalf("open %s: %v", c.path, err)
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(b) != c.want {
			t.Errorf("read %s: %q, %v; want %q", c.path, b, err, c.want)
		}
	}
	if _, err := st.Open(ctx, "gone"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("open of a missing object: %v, want fs.ErrNotExist", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for k, n := range count {
		if strings.HasPrefix(k, "HEAD ") || n != 1 {
			t.Errorf("%s sent %d times; want one GET an object and no HEAD (all: %v)", k, n, count)
		}
	}
}
