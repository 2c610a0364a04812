package claims

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rsx/fetch"
	"rsx/model"
)

// testServer serves testBody and its variants; sent counts the body bytes
// the long handlers managed to write before the client stopped reading.
type testServer struct {
	*httptest.Server
	sent    atomic.Int64
	release chan struct{}
}

func newTestServer(t *testing.T) *testServer {
	s := &testServer{release: make(chan struct{})}
	mux := http.NewServeMux()
	good := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Last-Modified", "Wed, 02 Jan 2013 13:00:00 GMT")
		io.WriteString(w, body)
	}
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { good(w, testBody) })
	mux.HandleFunc("/mirror-ok", func(w http.ResponseWriter, r *http.Request) { good(w, testBody) })
	mux.HandleFunc("/mirror-stale", func(w http.ResponseWriter, r *http.Request) { good(w, "an older copy\n") })
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusMovedPermanently) })
	mux.HandleFunc("/later", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Last-Modified", "Thu, 03 Jan 2013 09:00:00 GMT")
		io.WriteString(w, testBody)
	})
	// An endless body without Content-Length.
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		chunk := []byte(strings.Repeat("x", 32<<10))
		for r.Context().Err() == nil {
			n, err := w.Write(chunk)
			s.sent.Add(int64(n))
			if err != nil || s.sent.Load() > 256<<20 {
				return
			}
		}
	})
	// A Content-Length far beyond the declared length.
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", "5000000000")
		io.WriteString(w, "x")
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", fmt.Sprint(len(testBody)))
		io.WriteString(w, testBody[:10])
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(s.release)
		s.Close()
	})
	return s
}

func testClient(t *testing.T) *fetch.Client {
	t.Helper()
	c, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", IdleTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCheckHTTP(t *testing.T) {
	srv := newTestServer(t)
	ck := New(testClient(t), Options{Preview: 16})
	good := claimsOf(t, testBody)
	change := func(f func(*Claims)) Claims {
		c := claimsOf(t, testBody)
		f(&c)
		return c
	}
	tests := []struct {
		name, path string
		claims     Claims
		want       string
		verdict    Verdict
	}{
		{"everything matches", "/ok", good, "status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓", OK},
		{"a redirect to it", "/moved", good, "status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓", OK},
		{"404", "/missing", good, "status✗ length? type? lastmod? md5? sha-256?", Mismatch},
		{"lastmod later: a warning", "/later", good, "status✓ length✓ type✓ lastmod! md5✓ sha-256✓", Warning},
		{"a wrong digest", "/ok", change(func(c *Claims) { c.Hash = hashes(t, "md5:"+md5Hex("something else")) }), "status✓ length✓ type✓ lastmod✓ md5✗", Mismatch},
		{"an unknown algorithm", "/ok", change(func(c *Claims) { c.Hash = hashes(t, "sha3-256:"+sha256Hex(testBody)) }), "status✓ length✓ type✓ lastmod✓ sha3-256?", OK},
		{"only an unknown algorithm", "/ok", Claims{Hash: hashes(t, "sha3-256:"+sha256Hex(testBody))}, "status✓ length– type– lastmod– sha3-256?", Unchecked},
		{"an endless body", "/endless", good, "status✓ length✗ type✓ lastmod? md5? sha-256?", Mismatch},
		{"Content-Length far too long", "/huge", good, "status✓ length✗ type✓ lastmod? md5? sha-256?", Mismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := ck.Check(context.Background(), Target{URL: srv.URL + tt.path, Claims: tt.claims}, nil)
			if m := marks(res.Checks); m != tt.want {
				t.Errorf("marks %s\nwant  %s\n%+v", m, tt.want, res.Checks)
			}
			if v := res.Verdict(); v != tt.verdict {
				t.Errorf("verdict %v, want %v", v, tt.verdict)
			}
		})
	}

	// The redirect is told.
	res := ck.Check(context.Background(), Target{URL: srv.URL + "/moved", Claims: good}, nil)
	if st, _ := res.Find("status"); !strings.Contains(st.Actual, "after 1 redirect to "+srv.URL+"/ok") || len(res.Received.Redirects) != 1 {
		t.Errorf("redirect not told: %+v", st)
	}
	if string(res.Preview) != testBody[:16] {
		t.Errorf("preview %q", res.Preview)
	}

	// The endless body was read only up to the declared length plus the
	// margin, and the server was stopped well before gigabytes.
	res = ck.Check(context.Background(), Target{URL: srv.URL + "/endless", Claims: good}, nil)
	if want := int64(len(testBody)) + DefaultMargin; res.Received.Bytes != want || !res.Received.Truncated {
		t.Errorf("endless body: read %d bytes (truncated %v), want %d", res.Received.Bytes, res.Received.Truncated, want)
	}
	if sent := srv.sent.Load(); sent > 64<<20 {
		t.Errorf("the server wrote %d bytes: the client kept reading", sent)
	}
	res = ck.Check(context.Background(), Target{URL: srv.URL + "/huge", Claims: good}, nil)
	if ln, _ := res.Find("length"); ln.Actual != "Content-Length 5000000000" || res.Received.Bytes != 0 {
		t.Errorf("huge: %+v after %d bytes", ln, res.Received.Bytes)
	}
}

func TestCheckNotFetchable(t *testing.T) {
	d := &countingDownloader{}
	ck := New(d, Options{})
	for _, u := range []string{"file:///etc/passwd", "/etc/passwd", "rsync://m.example/r"} {
		res := ck.Check(context.Background(), Target{URL: u, Claims: claimsOf(t, testBody)}, nil)
		if !errors.Is(res.Err(), ErrNotFetchable) || res.Verdict() != Unchecked {
			t.Errorf("%s: %v %v", u, res.Err(), res.Verdict())
		}
		st, _ := res.Find("status")
		if st.Verdict != Unchecked || !strings.Contains(st.Reason, "only http and https") {
			t.Errorf("%s: status %+v", u, st)
		}
	}
	if d.calls.Load() != 0 {
		t.Errorf("the downloader was asked %d times", d.calls.Load())
	}
}

// countingDownloader serves bodies of a fixed size from memory, ignoring
// MaxBytes, and counts its calls.
type countingDownloader struct {
	calls atomic.Int64
	size  int
}

func (d *countingDownloader) DownloadWith(ctx context.Context, url string, w io.Writer, o fetch.DownloadOptions) (*fetch.Exchange, error) {
	d.calls.Add(1)
	ex := &fetch.Exchange{Method: "GET", URL: url, FinalURL: url, Status: 200, ResponseHeader: http.Header{}}
	buf := make([]byte, 1000)
	for sent := 0; sent < d.size; sent += len(buf) {
		if _, err := w.Write(buf[:min(len(buf), d.size-sent)]); err != nil {
			return ex, fmt.Errorf("download %s: write: %w", url, err)
		}
	}
	return ex, nil
}

func TestCheckBudget(t *testing.T) {
	d := &countingDownloader{size: 4000}
	b := NewBudget(10000)
	ck := New(d, Options{Budget: b})
	c := Claims{LengthRaw: "4000", Length: 4000, LengthOK: true}
	var verdicts []string
	for i := range 4 {
		res := ck.Check(context.Background(), Target{URL: fmt.Sprintf("http://example.com/%d", i), Claims: c}, nil)
		ln, _ := res.Find("length")
		verdicts = append(verdicts, ln.Verdict.String())
		if i >= 2 && !errors.Is(res.Err(), ErrBudgetSpent) {
			t.Errorf("check %d: %v, want the budget spent", i, res.Err())
		}
	}
	if got := strings.Join(verdicts, ","); got != "ok,ok,unchecked,unchecked" {
		t.Errorf("length verdicts %s", got)
	}
	if d.calls.Load() != 3 {
		t.Errorf("%d downloads, want 3 (none once the budget is spent)", d.calls.Load())
	}
}

// The downloader ignores MaxBytes: the Verifier alone stops the body.
func TestCheckLimitWithoutDownloaderHelp(t *testing.T) {
	d := &countingDownloader{size: 1 << 20}
	res := New(d, Options{Margin: 100}).Check(context.Background(), Target{URL: "http://example.com/r", Claims: Claims{LengthRaw: "10", Length: 10, LengthOK: true}}, nil)
	if res.Received.Bytes != 110 || !res.Received.Truncated {
		t.Errorf("read %d bytes, truncated %v", res.Received.Bytes, res.Received.Truncated)
	}
}

func TestCheckCancel(t *testing.T) {
	srv := newTestServer(t)
	ck := New(testClient(t), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once sync.Once
	go func() {
		<-started
		cancel()
	}()
	res := ck.Check(ctx, Target{URL: srv.URL + "/slow", Claims: claimsOf(t, testBody)}, func(done, total int64) {
		if done > 0 {
			once.Do(func() { close(started) })
		}
	})
	if !errors.Is(res.Err(), context.Canceled) {
		t.Fatalf("err %v", res.Err())
	}
	if m := marks(res.Checks); m != "status? length? type✓ lastmod? md5? sha-256?" {
		t.Errorf("marks %s", m)
	}
	if st, _ := res.Find("status"); st.Short != "cancelled" {
		t.Errorf("status %+v", st)
	}
}

func TestCheckEntryMirrors(t *testing.T) {
	srv := newTestServer(t)
	ck := New(testClient(t), Options{Concurrency: 2})
	e := model.Entry{
		Loc: srv.URL + "/ok", Lastmod: datetime(t, "2013-01-02T13:00:00Z"),
		MD: model.Metadata{Hash: hashes(t, "md5:"+md5Hex(testBody)), Length: int64(len(testBody)), LengthRaw: fmt.Sprint(len(testBody)), LengthOK: true, Type: "text/html"},
		Links: []model.Link{
			{Rel: "duplicate", Href: "/mirror-stale", Pri: 2, PriRaw: "2", PriOK: true},
			{Rel: "duplicate", Href: "gsiftp://grid.example/r", Pri: 3, PriRaw: "3", PriOK: true},
			{Rel: "duplicate", Href: "/mirror-ok", Pri: 1, PriRaw: "1", PriOK: true},
			{Rel: "alternate", Href: "/other"},
		},
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	res := ck.CheckEntry(context.Background(), e, func(p Progress) {
		mu.Lock()
		seen[p.Target.URL] = true
		mu.Unlock()
	})
	if len(res.Results) != 4 {
		t.Fatalf("%d results", len(res.Results))
	}
	want := []struct {
		path, marks string
	}{
		{"/ok", "status✓ length✓ type✓ lastmod✓ md5✓"},
		{"/mirror-ok", "status✓ length✓ type✓ lastmod✓ md5✓"},
		{"/mirror-stale", "status✓ length✗ type✓ lastmod✓ md5✗"},
		{"gsiftp://grid.example/r", "status? length? type? lastmod? md5?"},
	}
	for i, w := range want {
		r := res.Results[i]
		if !strings.HasSuffix(r.Target.URL, w.path) || marks(r.Checks) != w.marks {
			t.Errorf("result %d: %s %s, want %s %s", i, r.Target.URL, marks(r.Checks), w.path, w.marks)
		}
	}
	if res.Primary().Verdict() != OK || res.Verdict() != Mismatch {
		t.Errorf("primary %v, entry %v", res.Primary().Verdict(), res.Verdict())
	}
	if len(res.Mirrors()) != 3 || !seen[srv.URL+"/mirror-stale"] || seen["gsiftp://grid.example/r"] {
		t.Errorf("progress seen for %v", seen)
	}
}

func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.html")
	if err := os.WriteFile(path, []byte(testBody), 0o600); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2013, 1, 2, 13, 0, 0, 0, time.UTC)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	ck := New(nil, Options{})
	var last int64
	c := claimsOf(t, testBody)
	res := ck.CheckFile(context.Background(), path, c, func(done, total int64) { last = done })
	if m := marks(res.Checks); m != "status✓ length✓ type? lastmod✓ md5✓ sha-256✓" || last != int64(len(testBody)) {
		t.Errorf("file: %s, progress %d", m, last)
	}
	if res.Verdict() != OK {
		t.Errorf("verdict %v", res.Verdict())
	}
	// Bit rot: one byte changed.
	rotten := []byte(testBody)
	rotten[3] ^= 1
	os.WriteFile(path, rotten, 0o600)
	res = ck.CheckFile(context.Background(), path, c, nil)
	if m := marks(res.Checks); m != "status✓ length✓ type? lastmod! md5✗ sha-256✗" {
		t.Errorf("rotten file: %s", m)
	}
	res = ck.CheckFile(context.Background(), filepath.Join(dir, "absent"), c, nil)
	if m := marks(res.Checks); m != "status✗ length? type? lastmod? md5? sha-256?" || !errors.Is(res.Err(), os.ErrNotExist) {
		t.Errorf("missing file: %s %v", m, res.Err())
	}
	res = ck.CheckFile(context.Background(), dir, c, nil)
	if st, _ := res.Find("status"); st.Verdict != Mismatch || !strings.Contains(st.Actual, "directory") {
		t.Errorf("directory: %+v", st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res = ck.CheckFile(ctx, path, c, nil)
	if !errors.Is(res.Err(), context.Canceled) || res.Verdict() != Unchecked {
		t.Errorf("cancelled: %v %v", res.Err(), res.Verdict())
	}
}

// Without a digest, only the bytes tell a stale mirror from a copy: each
// mirror is compared with the resource.
func TestCheckTargetsMirrorContent(t *testing.T) {
	srv := newTestServer(t)
	ck := New(testClient(t), Options{Concurrency: 3})
	e := model.Entry{
		Loc: srv.URL + "/ok",
		MD:  model.Metadata{Type: "text/html"},
		Links: []model.Link{
			{Rel: "duplicate", Href: "/mirror-ok", Pri: 1, PriRaw: "1", PriOK: true},
			{Rel: "duplicate", Href: "/mirror-stale", Pri: 2, PriRaw: "2", PriOK: true},
			{Rel: "duplicate", Href: "/missing", Pri: 3, PriRaw: "3", PriOK: true},
		},
	}
	res := ck.CheckTargets(context.Background(), Targets(e), nil)
	want := []string{
		"status✓ length– type✓ lastmod– hash–",
		"status✓ length– type✓ lastmod– hash– content✓",
		"status✓ length– type✓ lastmod– hash– content✗",
		"status✗ length– type? lastmod– hash–",
	}
	for i, w := range want {
		if m := marks(res.Results[i].Checks); m != w {
			t.Errorf("target %d (%s): %s, want %s", i, res.Results[i].Target.URL, m, w)
		}
	}
	if c, _ := res.Results[2].Find("content"); c.Actual != "sha-256:"+sha256Hex("an older copy\n") || !strings.Contains(c.Declared, sha256Hex(testBody)) {
		t.Errorf("content check %+v", c)
	}
	if res.Results[0].Fingerprint == nil || res.Verdict() != Mismatch {
		t.Errorf("fingerprint %x, verdict %v", res.Results[0].Fingerprint, res.Verdict())
	}

	// A declared digest is enough: no fingerprint, no content check.
	e.MD.Hash = hashes(t, "md5:"+md5Hex(testBody))
	res = ck.CheckTargets(context.Background(), Targets(e), nil)
	if _, ok := res.Results[2].Find("content"); ok || res.Results[0].Fingerprint != nil {
		t.Errorf("content compared although a digest is declared: %s", marks(res.Results[2].Checks))
	}
	if m := marks(res.Results[2].Checks); m != "status✓ length– type✓ lastmod– md5✗" {
		t.Errorf("stale mirror with a digest: %s", m)
	}
}

// A caller holds a target to other claims: a deleted resource must be gone.
func TestCheckTargetsGone(t *testing.T) {
	srv := newTestServer(t)
	ck := New(testClient(t), Options{})
	for _, tt := range []struct{ path, marks string }{{"/missing", "status✓"}, {"/ok", "status✗"}} {
		tg := Targets(model.Entry{Loc: srv.URL + tt.path})
		tg[0].Claims.Gone = true
		res := ck.CheckTargets(context.Background(), tg, nil)
		if m := marks(res.Primary().Checks); m != tt.marks {
			t.Errorf("%s expected gone: %s, want %s", tt.path, m, tt.marks)
		}
	}
}

// A target that takes longer than Options.Timeout is told so, and the
// error is still a deadline; a caller's own cause is kept as well.
func TestCheckTimeout(t *testing.T) {
	srv := newTestServer(t)
	ck := New(testClient(t), Options{Timeout: 50 * time.Millisecond})
	res := ck.Check(context.Background(), Target{URL: srv.URL + "/slow", Claims: claimsOf(t, testBody)}, nil)
	if !errors.Is(res.Err(), context.DeadlineExceeded) || !strings.Contains(res.Err().Error(), "no complete answer within 50ms") {
		t.Errorf("err %v", res.Err())
	}
	if st, _ := res.Find("status"); st.Verdict != Unchecked || !strings.Contains(st.Reason, "within 50ms") {
		t.Errorf("status %+v", st)
	}

	cause := errors.New("the audit's time budget is spent")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(50*time.Millisecond, func() { cancel(cause) })
	res = New(testClient(t), Options{}).Check(ctx, Target{URL: srv.URL + "/slow", Claims: claimsOf(t, testBody)}, nil)
	if !errors.Is(res.Err(), context.Canceled) || !errors.Is(res.Err(), cause) {
		t.Errorf("err %v", res.Err())
	}
	if st, _ := res.Find("status"); st.Short != "cancelled" {
		t.Errorf("a cancellation with a cause is still one: %+v", st)
	}
}
