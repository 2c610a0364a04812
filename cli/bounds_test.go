package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rsx/crawl"
)

// generatingSite serves a chain of 100 nested indexes (/chain/N lists
// /chain/N+1) and an index of 300 Resource Lists, counting requests.
func generatingSite(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	var srv *httptest.Server
	index := func(locs ...string) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="resourcelist" at="2024-01-01T00:00:00Z"/>`)
		for _, l := range locs {
			b.WriteString("<sitemap><loc>" + l + "</loc></sitemap>")
		}
		return b.String() + "</sitemapindex>"
	}
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch {
		case strings.HasPrefix(r.URL.Path, "/chain/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/chain/"))
			if n >= 100 {
				w.Write([]byte(index()))
				return
			}
			w.Write([]byte(index(fmt.Sprintf("%s/chain/%d", srv.URL, n+1))))
		case r.URL.Path == "/wide":
			var locs []string
			for i := range 300 {
				locs = append(locs, fmt.Sprintf("%s/list/%d", srv.URL, i))
			}
			w.Write([]byte(index(locs...)))
		default:
			w.Write([]byte(rsOpen + `<rs:md capability="resourcelist" at="2024-01-01T00:00:00Z"/><url><loc>` + srv.URL + `/r</loc></url>` + rsClose))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestTreeAndValidateBounds: tree and validate --recursive stop at the
// depth and document bounds (defaults, and as given), and say so.
func TestTreeAndValidateBounds(t *testing.T) {
	srv, hits := generatingSite(t)

	_, out, errs := runCmd(t, "tree", srv.URL+"/chain/0")
	if n := hits.Load(); n != crawl.DefaultMaxDepth+1 || !strings.Contains(errs, "--depth") {
		t.Errorf("tree of a 100-level chain: %d documents fetched, want %d\n%s%s", n, crawl.DefaultMaxDepth+1, out, errs)
	}
	hits.Store(0)
	_, out, errs = runCmd(t, "tree", "--max-documents", "50", srv.URL+"/wide")
	if n := hits.Load(); n != 50 || !strings.Contains(errs, "251 documents not loaded past the bound of 50 documents (--max-documents)") ||
		!strings.Contains(out, "(not loaded: the bound of documents was reached") {
		t.Errorf("tree of a wide index: %d documents fetched\n%s%s", n, out, errs)
	}
	hits.Store(0)
	_, out, errs = runCmd(t, "validate", "--recursive", "--depth", "5", "--quiet", srv.URL+"/chain/0")
	if n := hits.Load(); n != 6 || !strings.Contains(out, "not all checked") || !strings.Contains(out, "below depth 5") {
		t.Errorf("validate --recursive --depth 5: %d documents fetched\n%s%s", n, out, errs)
	}
	hits.Store(0)
	_, out, errs = runCmd(t, "validate", "--recursive", "--json", "--max-documents", "20", srv.URL+"/wide")
	v := decodeOneJSON[struct {
		Documents []any    `json:"documents"`
		Bounds    []string `json:"bounds"`
	}](t, out, "validate")
	if n := hits.Load(); n != 20 || len(v.Documents) != 20 || len(v.Bounds) != 1 || !strings.Contains(errs, "--max-documents") {
		t.Errorf("validate --recursive --max-documents 20: %d fetched, %d documents, bounds %q\n%s", n, len(v.Documents), v.Bounds, errs)
	}
}

// TestRetryAfterIsCappedAndSaid: a Retry-After of two minutes is waited for
// at most --max-retry-wait, and the wait is said on standard error.
func TestRetryAfterIsCappedAndSaid(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(rsOpen + `<rs:md capability="resourcelist" at="2024-01-01T00:00:00Z"/><rs:ln rel="up" href="http://example.com/cl.xml"/>` + rsClose))
	}))
	defer srv.Close()
	start := time.Now()
	code, out, errs := runCmd(t, "validate", "--retries", "1", "--max-retry-wait", "1s", srv.URL+"/rl.xml")
	if code != exitOK || time.Since(start) > 10*time.Second || !strings.Contains(errs, "waiting 1s before trying "+srv.URL+"/rl.xml again (503; Retry-After asked 2m0s, capped)") {
		t.Errorf("exit %d after %v\n%s%s", code, time.Since(start), out, errs)
	}
}
