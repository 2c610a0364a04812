package store

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// fakePut is an S3 server on httptest that answers the bucket probe and
// records every other request: its method, path, headers and body.
type fakePut struct {
	mu   sync.Mutex
	reqs []recordedReq
}

type recordedReq struct {
	method, path string
	header       http.Header
	body         []byte
}

func (f *fakePut) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/bkt/" || r.URL.Path == "/bkt" { // BucketExists
		w.WriteHeader(http.StatusOK)
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.reqs = append(f.reqs, recordedReq{r.Method, r.URL.Path, r.Header.Clone(), body})
	f.mu.Unlock()
	w.Header().Set("ETag", `"0123456789abcdef0123456789abcdef"`)
	w.WriteHeader(http.StatusOK)
}

func (f *fakePut) requests() []recordedReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recordedReq(nil), f.reqs...)
}

// fakeS3 opens the bucket "bkt" with prefix "p" on srv, over http or, for a
// TLS server, https (trusting its certificate).
func fakeS3(t *testing.T, srv *httptest.Server) *S3 {
	t.Helper()
	loc, err := ParseS3URL("s3://bkt/p?endpoint=" + srv.URL + "&region=us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL)
	client, err := minio.New(u.Host, &minio.Options{
		Creds: credentials.NewStaticV4("id", "secret", ""), Secure: u.Scheme == "https", Region: "us-east-1",
		BucketLookup: minio.BucketLookupPath, Transport: srv.Client().Transport,
	})
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cache, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &S3{loc: loc, client: client, cache: cache}
}

func tmpFiles(t *testing.T, s *S3) int {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(s.cache, "tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestS3PutChecksum: a write is one PUT of the plain bytes carrying a hash
// of them that the server checks: over http the payload's SHA-256 in the
// signed X-Amz-Content-Sha256 (not minio-go's streaming signature, whose
// aws-chunked framing and three signatures a request cost CPU on both
// sides), over https Content-MD5 (minio-go sent UNSIGNED-PAYLOAD there and no
// checksum at all). A small write stages no temporary file; one over
// s3MemStage does, and removes it.
func TestS3PutChecksum(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), (s3MemStage+s3MemStage/2)/16)
	for _, tls := range []bool{false, true} {
		for _, c := range []struct {
			name string
			body []byte
			typ  string
		}{
			{"empty", nil, ""},
			{"small.html", []byte("<p>hello</p>"), "text/html"},
			{"big.bin", big, "application/octet-stream"},
		} {
			f := &fakePut{}
			var srv *httptest.Server
			if tls {
				srv = httptest.NewTLSServer(f)
			} else {
				srv = httptest.NewServer(f)
			}
			s := fakeS3(t, srv)
			ctx := context.Background()
			w, err := s.Create(ctx, c.name, Meta{ContentType: c.typ})
			if err != nil {
				t.Fatal(err)
			}
			// Written in pieces, as a download arrives.
			for rest := c.body; len(rest) > 0; {
				n := min(len(rest), 32<<10)
				if _, err := w.Write(rest[:n]); err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
			}
			wantTmp := 0
			if len(c.body) > s3MemStage {
				wantTmp = 1
			}
			if n := tmpFiles(t, s); n != wantTmp {
				t.Errorf("tls %v, %s: %d temporary files while staged, want %d", tls, c.name, n, wantTmp)
			}
			if err := w.Commit(ctx); err != nil {
				t.Fatalf("tls %v, %s: %v", tls, c.name, err)
			}
			srv.Close()
			if n := tmpFiles(t, s); n != 0 {
				t.Errorf("tls %v, %s: %d temporary files after Commit", tls, c.name, n)
			}
			reqs := f.requests()
			if len(reqs) != 1 || reqs[0].method != http.MethodPut || reqs[0].path != "/bkt/p/"+c.name {
				var got []string
				for _, r := range reqs {
					got = append(got, r.method+" "+r.path)
				}
				t.Fatalf("tls %v, %s: requests %q, want one PUT", tls, c.name, got)
			}
			r := reqs[0]
			if !bytes.Equal(r.body, c.body) {
				t.Errorf("tls %v, %s: the server received %d bytes (Content-Encoding %q), not the %d written", tls, c.name, len(r.body), r.header.Get("Content-Encoding"), len(c.body))
			}
			sha := sha256.Sum256(c.body)
			sum := md5.Sum(c.body)
			wantSHA, wantMD5 := hex.EncodeToString(sha[:]), ""
			if tls {
				wantSHA, wantMD5 = "UNSIGNED-PAYLOAD", base64.StdEncoding.EncodeToString(sum[:])
			}
			if got := r.header.Get("X-Amz-Content-Sha256"); got != wantSHA {
				t.Errorf("tls %v, %s: X-Amz-Content-Sha256 %q, want %q", tls, c.name, got, wantSHA)
			}
			if got := r.header.Get("Content-Md5"); got != wantMD5 {
				t.Errorf("tls %v, %s: Content-MD5 %q, want %q", tls, c.name, got, wantMD5)
			}
			if !tls && !strings.Contains(r.header.Get("Authorization"), "x-amz-content-sha256") {
				t.Errorf("%s: the payload's hash is not among the signed headers: %q", c.name, r.header.Get("Authorization"))
			}
			wantType := c.typ
			if wantType == "" {
				wantType = "application/octet-stream"
			}
			if got := r.header.Get("Content-Type"); got != wantType {
				t.Errorf("tls %v, %s: Content-Type %q, want %q", tls, c.name, got, wantType)
			}
		}
	}
}

// TestS3OpenAllocates: reading a small object does not allocate a 64 KiB
// buffer (and a goroutine) an object, as minio-go's lazy object read through
// a bufio.Reader did: an audit reads every object of the copy.
func TestS3OpenAllocates(t *testing.T) {
	if raceEnabled {
		t.Skip("an allocation budget: the race detector's instrumentation allocates")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bkt/" || r.URL.Path == "/bkt" {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.Header().Set("Content-Length", "5")
		w.Header().Set("ETag", `"5d41402abc4b2a76b9719d911017c592"`)
		w.Header().Set("Last-Modified", "Fri, 27 Nov 2026 10:00:00 GMT")
		io.WriteString(w, "hello")
	}))
	defer srv.Close()
	s := fakeS3(t, srv)
	ctx := context.Background()
	read := func() {
		f, err := s.Open(ctx, "a.txt")
		if err != nil {
			t.Fatal(err)
		}
		if b, err := io.ReadAll(f); err != nil || string(b) != "hello" {
			t.Fatalf("read: %q, %v", b, err)
		}
		f.Close()
	}
	read() // the connection
	const n = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		read()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 32<<10 {
		t.Errorf("%d bytes allocated an Open and read of a 5-byte object, want under 32 KiB", per)
	}
}

// TestS3PutVerifiedByServer: the hash a write sends is one the server
// checks. A proxy between rsx and versitygw changes a byte of the body of
// PUTs under p/bad/: each such write fails, and nothing is stored; the
// others, small and over s3MemStage and over s3SinglePut (minio-go's
// multipart upload, signed as it streams), read back as written.
func TestS3PutVerifiedByServer(t *testing.T) {
	g := startGateway(t, "verify")
	target, _ := url.Parse(g.endpoint)
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target)
		pr.Out.Host = pr.In.Host // the signature covers the Host header
		r := pr.Out
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/p/bad/") && r.ContentLength > 0 {
			b, _ := io.ReadAll(r.Body)
			b[len(b)-1] ^= 1
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
	}}
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	st, err := Open(context.Background(), "s3://verify/p?endpoint="+srv.URL+"&region=us-east-1", Options{Getenv: getenv, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*S3)
	ctx := context.Background()
	bodies := map[string][]byte{
		"small.txt": []byte("a small body"),
		"big.bin":   bytes.Repeat([]byte("x"), s3MemStage+1000),
		"huge.bin":  bytes.Repeat([]byte("y"), s3SinglePut+1000),
	}
	for name, body := range bodies {
		for _, dir := range []string{"ok/", "bad/"} {
			if dir == "bad/" && len(body) > s3SinglePut {
				continue // the proxy would hold it whole; the parts are signed as before
			}
			w, err := s.Create(ctx, dir+name, Meta{})
			if err != nil {
				t.Fatal(err)
			}
			w.Write(body)
			err = w.Commit(ctx)
			if dir == "bad/" {
				if err == nil {
					t.Errorf("%s%s: a body changed on the way was stored", dir, name)
				}
				if _, serr := s.Stat(ctx, dir+name); serr == nil {
					t.Errorf("%s%s: the object exists after a refused PUT", dir, name)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s%s: %v", dir, name, err)
			}
			f, err := s.Open(ctx, dir+name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(f)
			f.Close()
			if err != nil || !bytes.Equal(got, body) {
				t.Errorf("%s%s: read back %d bytes (%v), want %d", dir, name, len(got), err, len(body))
			}
		}
	}
}
