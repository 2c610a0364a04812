package fetch

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// validatingServer serves a body with the given validator and answers
// conditional requests with 304 when they match.
func validatingServer(t *testing.T, etag, lastModified string, body *atomic.Value, conditional *atomic.Int32) string {
	t.Helper()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if etag != "" {
			w.Header().Set("ETag", etag)
		}
		if lastModified != "" {
			w.Header().Set("Last-Modified", lastModified)
		}
		inm, ims := r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since")
		if inm != "" || ims != "" {
			conditional.Add(1)
		}
		if (etag != "" && inm == etag) || (etag == "" && lastModified != "" && ims == lastModified) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, body.Load().(string))
	})
	return s.URL + "/doc.xml"
}

func TestCacheRevalidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, etag, lm string }{
		{"etag", `"v1"`, ""},
		{"last-modified", "", "Sat, 21 Nov 2026 10:00:00 GMT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var body atomic.Value
			body.Store("<urlset>one</urlset>")
			var conditional atomic.Int32
			url := validatingServer(t, tc.etag, tc.lm, &body, &conditional)
			o := testOptions()
			o.NoCache = false
			o.CacheDir = t.TempDir()
			c := newTestClient(t, o)

			resp, got, err := getBody(t, c, url)
			if err != nil || got != "<urlset>one</urlset>" || resp.Exchange.FromCache {
				t.Fatalf("first: %q, %v, %+v", got, err, resp.Exchange)
			}
			body.Store("changed, but the validator says not")
			resp, got, err = getBody(t, c, url)
			if err != nil || got != "<urlset>one</urlset>" {
				t.Fatalf("second: %q, %v", got, err)
			}
			ex := resp.Exchange
			if !ex.FromCache || !ex.Revalidated || ex.Status != 304 || resp.Status != 200 ||
				resp.Header.Get("Content-Type") != "application/xml" || ex.Bytes != int64(len(got)) {
				t.Errorf("second: status %d, exchange %+v", resp.Status, ex)
			}
			if conditional.Load() != 1 {
				t.Errorf("%d conditional requests", conditional.Load())
			}

			// Another client with --no-cache asks unconditionally.
			o.NoCache = true
			nc := newTestClient(t, o)
			resp, got, err = getBody(t, nc, url)
			if err != nil || got != "changed, but the validator says not" || resp.Exchange.FromCache {
				t.Errorf("no-cache: %q, %v", got, err)
			}
			if conditional.Load() != 1 {
				t.Errorf("no-cache sent a conditional request")
			}
		})
	}
}

func TestCacheGzipBody(t *testing.T) {
	t.Parallel()
	const doc = "<urlset>compressed</urlset>"
	var hits atomic.Int32
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("ETag", `"z"`)
		if r.Header.Get("If-None-Match") == `"z"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gzipped(t, doc))
	})
	o := testOptions()
	o.NoCache = false
	o.CacheDir = t.TempDir()
	c := newTestClient(t, o)
	for i := range 2 {
		resp, got, err := getBody(t, c, s.URL+"/x.xml")
		if err != nil || got != doc || resp.Exchange.FromCache != (i == 1) {
			t.Fatalf("round %d: %q, %v, %+v", i, got, err, resp.Exchange)
		}
	}
}

func TestCacheCorruptEntryIgnored(t *testing.T) {
	t.Parallel()
	var body atomic.Value
	body.Store("fresh body")
	var conditional atomic.Int32
	url := validatingServer(t, `"e"`, "", &body, &conditional)
	o := testOptions()
	o.NoCache = false
	o.CacheDir = t.TempDir()
	c := newTestClient(t, o)
	if _, _, err := getBody(t, c, url); err != nil {
		t.Fatal(err)
	}
	// Damage the body but leave the trailer: the digest no longer matches.
	var files []string
	filepath.Walk(o.CacheDir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
	f, err := os.OpenFile(files[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("X"), 0)
	f.Close()
	resp, got, err := getBody(t, c, url)
	if err != nil || got != "fresh body" || resp.Exchange.FromCache {
		t.Fatalf("after damage: %q, %v, %+v", got, err, resp.Exchange)
	}
	// Garbage in place of the entry: no conditional request, no failure.
	os.WriteFile(files[0], []byte("garbage"), 0o600)
	before := conditional.Load()
	if _, got, err := getBody(t, c, url); err != nil || got != "fresh body" || conditional.Load() != before {
		t.Fatalf("after garbage: %q, %v", got, err)
	}
}

func TestCacheNotStoredWhenIncomplete(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"big"`)
		if r.URL.Path == "/declared" {
			w.Header().Set("Content-Length", "4000")
			w.Write([]byte(strings.Repeat("z", 4000)))
			return
		}
		w.Write([]byte(strings.Repeat("z", 2000)))
		w.(http.Flusher).Flush()
		select { // the rest comes only after the client has given up
		case <-r.Context().Done():
			return
		case <-time.After(3 * time.Second):
		}
		w.Write([]byte(strings.Repeat("z", 2000)))
	})
	o := testOptions()
	o.NoCache = false
	o.CacheDir = t.TempDir()
	o.MaxBytes = 100
	c := newTestClient(t, o)
	for _, p := range []string{"/declared", "/streamed"} {
		if _, _, err := getBody(t, c, s.URL+p); err == nil {
			t.Errorf("%s: no error", p)
		}
	}
	entries := 0
	filepath.Walk(o.CacheDir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			entries++
		}
		return nil
	})
	if entries != 0 {
		t.Errorf("%d cache files after a body over the limit", entries)
	}
}

func TestCacheAfterEarlyClose(t *testing.T) {
	t.Parallel()
	var body atomic.Value
	body.Store(strings.Repeat("e", 3000))
	var conditional atomic.Int32
	url := validatingServer(t, `"early"`, "", &body, &conditional)
	o := testOptions()
	o.NoCache = false
	o.CacheDir = t.TempDir()
	c := newTestClient(t, o)
	resp, err := c.Get(testContext(t), url)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if _, err := resp.Body.Read(buf); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close() // the rest is drained into the cache
	resp, got, err := getBody(t, c, url)
	if err != nil || len(got) != 3000 || !resp.Exchange.FromCache {
		t.Fatalf("%d bytes, %v, %+v", len(got), err, resp.Exchange)
	}
}

// TestCacheSweepsStaleTemporaries: a process killed while it cached a body
// leaves a temporary file; the next write into that directory removes it
// once it has gone unwritten for a day, and leaves a fresh one alone.
func TestCacheSweepsStaleTemporaries(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"e"`)
		fmt.Fprint(w, "body")
	})
	o := testOptions()
	o.NoCache = false
	o.CacheDir = t.TempDir()
	c := newTestClient(t, o)
	dir := filepath.Dir(c.cache.path(s.URL + "/doc.xml"))
	os.MkdirAll(dir, 0o700)
	stale, fresh := filepath.Join(dir, ".tmp-111"), filepath.Join(dir, ".tmp-222")
	for _, f := range []string{stale, fresh} {
		os.WriteFile(f, []byte("partial"), 0o600)
	}
	old := time.Now().Add(-2 * staleTemp)
	os.Chtimes(stale, old, old)
	if _, _, err := getBody(t, c, s.URL+"/doc.xml"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("the stale temporary file is still there")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh temporary file was removed")
	}
}
